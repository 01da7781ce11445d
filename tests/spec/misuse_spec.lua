-- Misuse: what scripts do wrong, on purpose or not, and what each costs —
-- always an error message or a defined outcome, never a crash, a hang or a
-- world holding nan (issue 5; API.md, "errors and limits").
local steer = require "steer"
local H = require "spec_helper"

local nan, inf = 0 / 0, math.huge

local function error_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error, got none")
  return err
end

local function open_world(t)
  t = t or {}
  t.width, t.height, t.edges = t.width or 1000, t.height or 1000, t.edges or "none"
  return steer.world(t)
end

local function finite(x) return x == x and x ~= inf and x ~= -inf end

-- Every number an agent reads back is finite.
local function assert_finite_agent(a)
  for _, f in ipairs { "pos", "vel", "heading", "side", "force" } do
    local v = a[f]
    assert.is_true(finite(v.x) and finite(v.y), f .. " = " .. tostring(v))
  end
  for _, f in ipairs { "speed", "max_speed", "max_force", "mass", "radius" } do
    assert.is_true(finite(a[f]), f .. " = " .. tostring(a[f]))
  end
end

-- A module file of our own in a temp folder, for steer.reload.
local function temp_module()
  local base = os.tmpname()
  local dir, name = base:match("^(.*)/([^/]+)$")
  assert(dir and name:match("^[%w_]+$"), "unexpected tmpname " .. base)
  local m = { name = name, file = base .. ".lua" }
  function m.write(src)
    local f = assert(io.open(m.file, "w"))
    f:write(src)
    f:close()
  end
  function m.remove()
    os.remove(m.file)
    os.remove(base)
    package.loaded[name] = nil
  end
  package.path = dir .. "/?.lua;" .. package.path
  return m
end

describe("misuse", function()
  describe("removing agents", function()
    it("while iterating world:agents(): the current one, the next one, all of them", function()
      local w = open_world()
      for i = 1, 10 do w:spawn { pos = { i, i } } end
      local seen = 0
      for a in w:agents() do
        seen = seen + 1
        w:remove(a) -- the current one
      end
      assert.are.equal(10, seen)
      assert.are.equal(0, w:count())

      for i = 1, 10 do w:spawn { pos = { i, i }, tag = "t" } end
      local ids = {}
      for a in w:agents() do
        ids[#ids + 1] = a.id
        -- the next one in spawn order goes too: the loop must skip it
        for b in w:agents() do
          if b.id > a.id then w:remove(b) break end
        end
      end
      assert.are.equal(5, #ids)
      for i = 2, #ids do assert.is_true(ids[i] > ids[i - 1]) end
      assert.are.equal(5, w:count("t"))

      local n = 0
      for a in w:agents() do
        n = n + 1
        for b in w:agents() do w:remove(b) end -- everything, itself included
        assert.is_false(a.alive)
      end
      assert.are.equal(1, n)
      assert.are.equal(0, w:count())
    end)

    it("spawning while iterating visits the newcomers once, in spawn order, and ends", function()
      local w = open_world()
      for i = 1, 3 do w:spawn { pos = { i, i } } end
      local n = 0
      for _ in w:agents() do
        n = n + 1
        if n <= 3 then w:spawn {} end
        assert.is_true(n < 100, "iteration does not end")
      end
      assert.are.equal(6, n)
    end)

    it("inside the agent's own update: gone at once, the others still update", function()
      local w = open_world()
      local updates = {}
      local suicidal = {
        update = function(self, a)
          updates[#updates + 1] = a.id
          a.world:remove(a)
          -- the agent is gone at once: using it raises, alive and id stay readable
          assert.is_false(a.alive)
          self.after = select(2, pcall(function() return a.pos end))
        end,
      }
      local calm = { update = function(self) self.n = (self.n or 0) + 1 end }
      local a = w:spawn { brain = suicidal }
      local b = w:spawn { brain = calm }
      local c = w:spawn { brain = suicidal }
      w:step()
      assert.are.same({ a.id, c.id }, updates)
      assert.is_false(a.alive)
      assert.is_false(c.alive)
      assert.are.equal(1, b.self.n)
      assert.are.equal(1, w:count())
      w:step()
      assert.are.equal(2, b.self.n)
      assert.are.equal(2, #updates)
      assert.matches("removed agent", error_of(function() return a.pos end))
    end)

    it("an agent removing the next agent in spawn order before its update", function()
      local w = open_world()
      local log = {}
      local victim
      local killer = { update = function(_, a) log[#log + 1] = "killer"; a.world:remove(victim) end }
      local logger = { update = function() log[#log + 1] = "victim" end }
      w:spawn { brain = killer }
      victim = w:spawn { brain = logger }
      w:step()
      assert.are.same({ "killer" }, log)
    end)

    it("removing a removed agent raises", function()
      local w = open_world()
      local a = w:spawn {}
      w:remove(a)
      assert.matches("attempt to use a removed agent", error_of(w.remove, w, a))
      assert.matches("attempt to use a removed agent", error_of(function() w:remove(a) end))
      assert.matches("attempt to use a removed agent", error_of(function() a:seek({ 0, 0 }) end))
      assert.matches("attempt to use a removed agent", error_of(function() a.pos = { 1, 1 } end))
      assert.is_false(a.alive)
      assert.are.equal("number", type(a.id))
      -- as a target or in a list it is an error, or skipped where documented
      local b = w:spawn {}
      assert.matches("removed agent", error_of(function() b:pursue(a) end))
      assert.matches("removed agent", error_of(function() b.behaviors = { { "seek", target = a } } end))
      b:separate({ a }) -- lists skip removed agents (world:neighbors results may outlive some)
    end)
  end)

  describe("spawning inside update", function()
    it("joins the world at once and runs from the next step on", function()
      local w = open_world()
      local child_updates = 0
      local child = { update = function() child_updates = child_updates + 1 end }
      local parent = {
        update = function(self, a)
          self.n = (self.n or 0) + 1
          if self.n <= 3 then
            local c = a.world:spawn { pos = a.pos, brain = child }
            assert.is_true(c.alive)
          end
        end,
      }
      w:spawn { brain = parent }
      w:step()
      assert.are.equal(2, w:count())
      assert.are.equal(0, child_updates)
      w:step()
      assert.are.equal(3, w:count())
      assert.are.equal(1, child_updates)
      w:step()
      assert.are.equal(4, w:count())
      assert.are.equal(1 + 2, child_updates)
    end)

    it("a brain that spawns a spawner every step grows linearly, not within one step", function()
      local w = open_world()
      local spawner
      spawner = { update = function(_, a) a.world:spawn { brain = spawner } end }
      w:spawn { brain = spawner }
      for _ = 1, 5 do w:step() end
      assert.are.equal(32, w:count())
    end)
  end)

  describe("world:step from a brain", function()
    it("is an error in that brain, not recursion; the step completes", function()
      local w = open_world()
      local calls = 0
      local brain = {
        update = function(_, a)
          calls = calls + 1
          a.world:step()
        end,
      }
      local a = w:spawn { brain = brain, vel = { 60, 0 } }
      local err = error_of(w.step, w)
      assert.matches("world:step called inside a step", err)
      assert.are.equal(1, calls)
      assert.are.equal(1, w.tick)
      -- the brain is paused, the agent coasts
      w:step()
      assert.are.equal(1, calls)
      assert.are.equal(2, w.tick)
      assert.near(2, a.pos.x, 1e-9)
    end)

    it("goes to on_error when it is set", function()
      local w = open_world()
      local got = {}
      w.on_error = function(agent, msg) got[#got + 1] = { agent, msg } end
      local a = w:spawn { brain = { update = function(_, ag) ag.world:step(1) end } }
      w:step()
      assert.are.equal(1, #got)
      assert.is_true(rawequal(a, got[1][1]))
      assert.matches("world:step called inside a step", got[1][2])
    end)

    it("stepping another world from a brain works; stepping back into the first does not", function()
      local w1, w2 = open_world(), open_world()
      local inner = 0
      w2:spawn { brain = { update = function() inner = inner + 1; w1:step() end } }
      w1:spawn { brain = { update = function() w2:step() end } }
      local err = error_of(w1.step, w1)
      assert.matches("world:step called inside a step", err)
      assert.are.equal(1, inner)
      assert.are.equal(1, w2.tick)
      assert.are.equal(1, w1.tick)
    end)
  end)

  describe("a world collected while its agents are referenced", function()
    it("lives on through its agents", function()
      local a, b
      do
        local w = open_world()
        a = w:spawn { pos = { 1, 2 }, vel = { 60, 0 } }
        b = w:spawn { brain = { update = function(self) self.n = (self.n or 0) + 1 end } }
      end
      collectgarbage()
      collectgarbage()
      assert.near(1, a.pos.x, 1e-12)
      local w = a.world
      assert.are.equal(2, w:count())
      w:step()
      assert.near(2, a.pos.x, 1e-9)
      assert.are.equal(1, b.self.n)
      assert.is_true(rawequal(w, b.world))
    end)

    it("goes when nothing holds it, agents, brains and paths with it", function()
      local weak = setmetatable({}, { __mode = "v" })
      do
        local w = open_world()
        local p = steer.path { { 0, 0 }, { 10, 0 } }
        local a = w:spawn { behaviors = { { "follow_path", path = p } } }
        a.self.world = w -- a cycle through the agent's state
        w:spawn { brain = { update = function() return w end } } -- and through a closure
        weak.w, weak.a, weak.p = w, a, p
        w:step()
      end
      collectgarbage()
      collectgarbage()
      assert.is_nil(weak.w)
      assert.is_nil(weak.a)
      assert.is_nil(weak.p)
    end)

    it("a removed agent outliving its world's other references stays safe", function()
      local a
      do
        local w = open_world()
        a = w:spawn {}
        w:remove(a)
      end
      collectgarbage()
      collectgarbage()
      assert.is_false(a.alive)
      assert.matches("removed agent", error_of(function() return a.pos end))
      assert.matches("removed", tostring(a))
    end)
  end)

  describe("errors thrown as tables", function()
    it("from update: step raises a string naming the table, the brain pauses", function()
      local w = open_world()
      local n = 0
      w:spawn { brain = { update = function() n = n + 1; error({ code = 42 }) end } }
      local err = error_of(w.step, w)
      assert.are.equal("string", type(err))
      assert.matches("table", err)
      w:step()
      assert.are.equal(1, n)
    end)

    it("with __tostring, the message is the table's own", function()
      local w = open_world()
      local obj = setmetatable({}, { __tostring = function() return "custom failure" end })
      w:spawn { brain = { update = function() error(obj) end } }
      assert.matches("custom failure", error_of(w.step, w))
    end)

    it("whose __tostring itself throws, or returns no string", function()
      local w = open_world()
      local bad1 = setmetatable({}, { __tostring = function() error("nested") end })
      local bad2 = setmetatable({}, { __tostring = function() return {} end })
      local got = {}
      w.on_error = function(_, msg) got[#got + 1] = msg end
      w:spawn { brain = { update = function() error(bad1) end } }
      w:spawn { brain = { update = function() error(bad2) end } }
      w:spawn { brain = { update = function() error() end } }
      w:step()
      assert.are.equal(3, #got)
      for _, m in ipairs(got) do assert.are.equal("string", type(m)) end
    end)

    it("from spawn, from on_error itself, and from a failing __index on the brain", function()
      local w = open_world()
      local err = error_of(w.spawn, w, { brain = { spawn = function() error({}) end } })
      assert.matches("table", err)
      assert.are.equal(1, w:count()) -- the agent exists, its brain paused
      w.on_error = function() error({ again = true }) end
      w:spawn { brain = { update = function() error("first") end } }
      assert.matches("table", error_of(w.step, w))
      w.on_error = nil
      -- an __index that throws pauses that brain only: the others still run
      local brain = setmetatable({}, { __index = function(_, k) if k == "update" then error({ idx = true }) end end })
      local later = { update = function(self) self.n = (self.n or 0) + 1 end }
      w:spawn { brain = brain }
      local c = w:spawn { brain = later }
      assert.matches("table", error_of(w.step, w))
      assert.are.equal(1, c.self.n)
      w:step()
      assert.are.equal(2, c.self.n)
      -- at spawn, the caller of world:spawn hears it (the agent exists, paused)
      local throwing = setmetatable({}, { __index = function() error({ idx = true }) end })
      local n = w:count()
      assert.matches("table", error_of(w.spawn, w, { brain = throwing }))
      assert.are.equal(n + 1, w:count())
      w:step()
    end)
  end)

  describe("deep recursion in a brain", function()
    it("becomes a stack overflow error; the world carries on", function()
      local w = open_world()
      local function deep(n) return deep(n + 1) + 1 end
      local a = w:spawn { brain = { update = function() deep(1) end }, vel = { 60, 0 } }
      local b = w:spawn { brain = { update = function(self) self.n = (self.n or 0) + 1 end } }
      assert.matches("stack overflow", error_of(w.step, w))
      w:step()
      assert.are.equal(2, b.self.n)
      assert.near(2, a.pos.x, 1e-9)
    end)

    it("through the bindings (a brain calling a method that calls the brain) too", function()
      local w = open_world()
      local brain = {}
      -- spawn runs brain.spawn, which spawns again: C and Lua frames alternate
      function brain.spawn(_, a) a.world:spawn { brain = brain } end
      local err = error_of(w.spawn, w, { brain = brain })
      assert.matches("stack overflow", err)
      assert.is_true(w:count() > 10)
      w:step()
    end)
  end)

  describe("huge strings", function()
    local big = string.rep("x", 2 ^ 20)

    it("as tags work and read back", function()
      local w = open_world()
      local a = w:spawn { tag = big }
      assert.are.equal(big, a.tag)
      assert.are.equal(1, w:count(big))
      a.tag = big .. "y"
      assert.are.equal(0, w:count(big))
      assert.are.equal(1, w:count(big .. "y"))
      assert.are.equal(1, #w:neighbors(a.pos, 10, { tag = big .. "y" }))
    end)

    it("as brain names are a not-found error", function()
      local w = open_world()
      local err = error_of(w.spawn, w, { brain = big })
      assert.matches("not found", err)
      assert.are.equal(0, w:count())
      local ok, msg = steer.reload(big)
      assert.is_nil(ok)
      assert.are.equal("string", type(msg))
    end)

    it("as field names and behaviour names are errors naming them", function()
      local w = open_world()
      local a = w:spawn {}
      assert.matches("no field", error_of(function() a[big] = 1 end))
      assert.matches("unknown behaviour", error_of(function() a.behaviors = { { big } } end))
      assert.is_nil(a[big])
    end)
  end)

  describe("steer.reload of a brain whose agent is mid-state", function()
  if H.no_hotswap_here(it) then return end -- Lua 5.1
    local mod
    before_each(function() mod = temp_module() end)
    after_each(function() mod.remove() end)

    local v1 = [[
      local M = {}
      function M.spawn(self) self.state, self.n = "chase", 0 end
      function M.update(self, a)
        self.n = self.n + 1
        if self.n == 3 then self.state = "rest" end
        a:seek({ 1000, 0 })
      end
      return M
    ]]
    local v2 = [[
      local M = {}
      function M.update(self, a)
        self.n = self.n + 10
        self.v2 = true
      end
      function M.reload(self, a) self.reloaded = (self.reloaded or 0) + 1 end
      return M
    ]]

    it("between steps keeps the state machine's state", function()
      mod.write(v1)
      local w = open_world()
      local a = w:spawn { brain = mod.name }
      for _ = 1, 4 do w:step() end
      assert.are.equal("rest", a.self.state)
      mod.write(v2)
      assert.is_truthy(steer.reload(mod.name))
      assert.are.equal("rest", a.self.state)
      assert.are.equal(1, a.self.reloaded)
      w:step()
      assert.are.equal(14, a.self.n)
    end)

    it("from inside the agent's own update, in the middle of a step", function()
      mod.write(v1)
      local w = open_world()
      local a = w:spawn { brain = mod.name }
      local b = w:spawn { brain = mod.name }
      w:step()
      -- a's update rewrites the module and reloads it; b runs the new code this very step
      local M = require(mod.name)
      local old_update = M.update
      M.update = function(self, ag)
        old_update(self, ag)
        if ag == a then
          mod.write(v2)
          local ok, err = steer.reload(mod.name)
          self.reload_result = { ok, err }
        end
      end
      w:step()
      assert.is_true(a.self.reload_result[1], tostring(a.self.reload_result[2]))
      assert.are.equal(1, a.self.reloaded)
      assert.are.equal(1, b.self.reloaded)
      assert.is_true(b.self.v2)
      assert.are.equal("chase", a.self.state)
      w:step()
      assert.are.equal(2 + 10, a.self.n)
    end)

    it("while the agent is paused by an error, and to a broken version and back", function()
      mod.write([[
        local M = {}
        function M.update(self) self.n = (self.n or 0) + 1; if self.n == 2 then error("mid-state") end end
        return M
      ]])
      local w = open_world()
      local a = w:spawn { brain = mod.name }
      w:step()
      assert.matches("mid%-state", error_of(w.step, w))
      mod.write("return {")
      local ok, err = steer.reload(mod.name)
      assert.is_nil(ok)
      assert.matches(mod.name, err)
      w:step() -- still paused
      assert.are.equal(2, a.self.n)
      mod.write(v2)
      assert.is_truthy(steer.reload(mod.name))
      w:step()
      assert.are.equal(12, a.self.n)
    end)

    it("a reload callback that reloads (itself) is refused, not an endless recursion", function()
      mod.write(v1)
      local w = open_world()
      local agents = {}
      for i = 1, 4 do agents[i] = w:spawn { brain = mod.name } end
      mod.write([[
        local steer = require "steer"
        local name = ...
        local M = {}
        function M.update() end
        function M.reload(self)
          self.reloads = (self.reloads or 0) + 1
          self.nested = { steer.reload(name) }
        end
        return M
      ]])
      local t0 = os.clock()
      assert.is_truthy(steer.reload(mod.name))
      assert.is_true(os.clock() - t0 < 5)
      for _, a in ipairs(agents) do
        assert.are.equal(1, a.self.reloads)
        assert.is_nil(a.self.nested[1])
        assert.matches("reload callback", a.self.nested[2])
      end
      -- and a later reload works again
      assert.is_truthy(steer.reload(mod.name))
      assert.are.equal(2, agents[1].self.reloads)
    end)

    it("a reload callback that removes its agent or spawns new ones", function()
      mod.write(v1)
      local w = open_world()
      local a = w:spawn { brain = mod.name }
      local b = w:spawn { brain = mod.name }
      mod.write([[
        local M = {}
        function M.update(self) self.n = (self.n or 0) + 1 end
        function M.reload(self, ag)
          if ag.id % 2 == 1 then ag.world:remove(ag) else ag.world:spawn { brain = M } end
        end
        return M
      ]])
      assert.is_truthy(steer.reload(mod.name))
      assert.is_false(a.alive)
      assert.is_true(b.alive)
      assert.are.equal(2, w:count())
      w:step()
    end)
  end)

  describe("nan and inf", function()
    local w, a, b
    before_each(function()
      w = open_world()
      a = w:spawn { pos = { 10, 10 } }
      b = w:spawn { pos = { 20, 20 } }
    end)

    -- method, call, argument number in the message
    local function cases()
      local p = steer.path { { 0, 0 }, { 10, 0 } }
      return {
        { "seek", function(x) a:seek({ x, 0 }) end, 1 },
        { "seek", function(x) a:seek({ x = 0, y = x }) end, 1 },
        { "seek", function(x) a:seek({ 0, 0 }, x) end, 2 },
        { "flee", function(x) a:flee({ 0, 0 }, x) end, 2 },
        { "flee", function(x) a:flee({ 0, 0 }, 10, x) end, 3 },
        { "arrive", function(x) a:arrive({ 0, 0 }, x) end, 2 },
        { "arrive", function(x) a:arrive({ x, 0 }) end, 1 },
        { "pursue", function(x) a:pursue(b, x) end, 2 },
        { "evade", function(x) a:evade(b, x) end, 2 },
        { "intercept", function(x) a:intercept(b, x) end, 2 },
        { "wander", function(x) a:wander(x) end, 1 },
        { "separate", function(x) a:separate({ b }, x) end, 2 },
        { "flock", function(x) a:flock({ radius = x }) end, 1 },
        { "flock", function(x) a:flock({ separation = x }) end, 1 },
        { "flock", function(x) a:flock({}, x) end, 2 },
        { "avoid_obstacles", function(x) a:avoid_obstacles(x) end, 1 },
        { "contain", function(x) a:contain(x) end, 1 },
        { "follow_path", function(x) a:follow_path(p, x) end, 2 },
        { "offset_pursue", function(x) a:offset_pursue(b, { x, 0 }) end, 2 },
        { "interpose", function(x) a:interpose(a, b, x) end, 3 },
        { "hide", function(x) a:hide(b, x) end, 2 },
        { "apply", function(x) a:apply({ x, x }) end, 1 },
        { "apply", function(x) a:apply({ 1, 1 }, x) end, 2 },
        { "spawn", function(x) w:spawn { pos = { x, 0 } } end, 1 },
        { "spawn", function(x) w:spawn { vel = { 0, x } } end, 1 },
        { "spawn", function(x) w:spawn { heading = { x, 1 } } end, 1 },
        { "spawn", function(x) w:spawn { max_speed = x } end, 1 },
        { "spawn", function(x) w:spawn { mass = x } end, 1 },
        { "spawn", function(x) w:spawn { radius = x } end, 1 },
        { "spawn", function(x) w:spawn { wander_jitter = x } end, 1 },
        { "spawn", function(x) w:spawn { behaviors = { { "seek", target = { x, 0 } } } } end, 1 },
        { "spawn", function(x) w:spawn { behaviors = { { "wander", weight = x } } } end, 1 },
        { "neighbors", function(x) w:neighbors(a, x) end, 2 },
        { "neighbors", function(x) w:neighbors({ x, 0 }, 10) end, 1 },
        { "neighbors", function(x) w:neighbors(a, 10, { fov = x }) end, 3 },
        { "nearest", function(x) w:nearest(a, x) end, 2 },
        { "obstacle", function(x) w:obstacle({ 0, 0 }, x) end, 2 },
        { "obstacle", function(x) w:obstacle({ x, 0 }, 1) end, 1 },
        { "wall", function(x) w:wall({ 0, 0 }, { x, 0 }) end, 2 },
        { "step", function(x) w:step(x) end, 1 },
        { "vec2", function(x) steer.vec2(x, 0) end, 1 },
        { "vec2", function(x) steer.vec2(0, x) end, 2 },
        { "from_angle", function(x) steer.vec2.from_angle(x) end, 1 },
        { "rotated", function(x) steer.vec2(1, 0):rotated(x) end, 1 },
        { "truncated", function(x) steer.vec2(1, 0):truncated(x) end, 1 },
        { "lerp", function(x) steer.vec2(1, 0):lerp({ 0, 0 }, x) end, 2 },
        { "dot", function(x) steer.vec2(1, 0):dot({ x, 0 }) end, 1 },
        { "path", function(x) steer.path { { x, 0 } } end, 1 },
        { "path", function(x) steer.path { { 0, 0 }, radius = x } end, 1 },
        { "world", function(x) steer.world { width = x } end, 1 },
        { "world", function(x) steer.world { dt = x } end, 1 },
      }
    end

    for _, x in ipairs { nan, inf, -inf } do
      it("raise the standard bad-argument error everywhere (" .. tostring(x) .. ")", function()
        for _, c in ipairs(cases()) do
          local name, f, arg = c[1], c[2], c[3]
          local err = error_of(f, x)
          local pattern = "bad argument #" .. arg .. " to '[%w_.]*" .. name .. "'"
          assert.is_truthy(tostring(err):find(pattern), name .. ": " .. tostring(err))
        end
        assert_finite_agent(a)
        assert_finite_agent(b)
        assert.are.equal(2, w:count())
      end)

      it("raise naming the field on assignment (" .. tostring(x) .. ")", function()
        for _, f in ipairs { "max_speed", "max_force", "mass", "radius", "wander_distance",
                             "wander_radius", "wander_jitter" } do
          assert.matches("field '" .. f .. "'", error_of(function() a[f] = x end))
        end
        for _, f in ipairs { "pos", "vel" } do
          assert.matches("field '" .. f .. "'", error_of(function() a[f] = { x, 0 } end))
          assert.matches("field '" .. f .. "'", error_of(function() a[f] = { x = 0, y = x } end))
        end
        local entry = { "flee", target = b, panic_radius = x }
        assert.matches("behaviors%[1%]", error_of(function() a.behaviors = { entry } end))
        assert_finite_agent(a)
      end)
    end

    it("vec2 arithmetic that overflows raises; lengths of huge vectors are right or raise", function()
      local big = steer.vec2(1e308, 1e308)
      assert.matches("not finite", error_of(function() return big + big end))
      assert.matches("not finite", error_of(function() return big * 10 end))
      assert.matches("not finite", error_of(function() return big / 1e-10 end))
      assert.matches("not finite", error_of(function() return big:len2() end))
      assert.matches("not finite", error_of(function() return big:dot(big) end))
      local v = steer.vec2(1e200, 0)
      assert.are.equal(1e200, v:len())
      assert.is_true(v:normalized() == steer.vec2(1, 0))
      assert.is_true(v:truncated(5) == steer.vec2(5, 0))
      local tiny = steer.vec2(1e-200, 0)
      assert.are.equal(1e-200, tiny:len())
      assert.is_true(tiny:normalized() == steer.vec2(1, 0))
      assert.is_true(tiny:truncated(0) == steer.vec2(0, 0))
      assert.is_true(steer.vec2(0, 0):normalized() == steer.vec2(0, 0))
    end)

    it("extreme finite values never put nan or inf into a world", function()
      local x = w:spawn { pos = { 1e308, -1e308 }, vel = { 1e308, 1e308 }, max_speed = 1e308,
                          max_force = 1e308, mass = 5e-324, radius = 1e308 }
      assert_finite_agent(x)
      local y = w:spawn { vel = { 1e200, 1e200 }, max_speed = 1e308, mass = 1e308, heading = { 1e-300, 0 } }
      assert_finite_agent(y)
      assert.is_true(y.heading == steer.vec2(1, 0), tostring(y.heading)) -- a tiny heading still points
      w:obstacle({ 0, 0 }, 1e308)
      w:wall({ -1e308, 0 }, { 1e308, 0 })
      for _, ag in ipairs { a, b, x, y } do
        for _, m in ipairs { "wander", "avoid_obstacles", "avoid_walls", "contain" } do
          local f = ag[m](ag)
          assert.is_true(finite(f.x) and finite(f.y), m)
        end
        for _, f in ipairs { ag:seek({ -1e308, 1e308 }), ag:arrive({ 1e308, 0 }), ag:pursue(x),
                             ag:evade(x), ag:intercept(y), ag:hide(x), ag:interpose(x, y),
                             ag:offset_pursue(x, { 1e308, -1e308 }), ag:flock { radius = 1e308 } } do
          assert.is_true(finite(f.x) and finite(f.y), tostring(f))
        end
        ag:apply({ 1e308, 1e308 }, 1e308)
      end
      w:step()
      w:step(1e308)
      w:step(1e308)
      assert.is_true(finite(w.time))
      for ag in w:agents() do assert_finite_agent(ag) end
      -- a query radius so large that distance^2 overflows still finds the far agent
      local far = open_world()
      local f1 = far:spawn { pos = { 0, 0 } }
      local f2 = far:spawn { pos = { 1e200, 0 } }
      local got, d = far:nearest(f1, 1e308)
      assert.is_true(rawequal(f2, got))
      assert.are.equal(1e200, d)
      assert.are.equal(1, #far:neighbors(f1, 1e308))
      y.mass = 1e308 -- a gain (mass / dt) that overflows
      y.vel = { 0, 0 }
      local f = y:arrive(y.pos)
      assert.is_true(finite(f.x) and finite(f.y), tostring(f))
    end)

    it("wrong types everywhere raise errors naming what was expected", function()
      local s = steer.vec2(1, 2)
      for _, bad in ipairs { "str", true, {}, { 1 }, { x = "1", y = 2 }, { { 1, 2 } }, s.len, w } do
        assert.is_false(pcall(a.seek, a, bad))
        assert.is_false(pcall(function() a.pos = bad end))
        assert.is_false(pcall(function() return s + bad end))
      end
      assert.matches("steer.agent", error_of(function() a:pursue({ 0, 0 }) end))
      assert.matches("number expected", error_of(function() a:seek({ 0, 0 }, "1") end))
      assert.matches("table expected", error_of(w.spawn, w, 42))
      assert.is_false(pcall(w.step, a))
      assert.is_false(pcall(a.seek, w, { 0, 0 }))
      assert.is_false(pcall(a.seek, nil, { 0, 0 }))
      assert_finite_agent(a)
    end)
  end)
end)
