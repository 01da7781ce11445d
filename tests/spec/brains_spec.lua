-- Brains: tables or modules of callbacks per agent, runtime errors, and
-- steer.reload (API.md, "brains" and "hot reload"; include/steer_lua.h).
local steer = require "steer"
local H = require "spec_helper"

package.path = "tests/spec/fixtures/?.lua;" .. package.path

local error_of, same, open_world = H.error_of, H.same, H.open_world

-- A module file of our own in the temp folder, for reloading.
local function temp_module()
  local base = os.tmpname()          -- creates the file; we use base .. ".lua"
  local dir, name = base:match("^(.*)/([^/]+)$")
  assert(dir and name:match("^[%w_]+$"), "unexpected tmpname " .. base)
  local file = base .. ".lua"
  local m = { name = name, file = file, base = base, dir = dir }
  function m.write(src)
    local f = assert(io.open(file, "w"))
    f:write(src)
    f:close()
  end
  function m.remove()
    os.remove(file)
    os.remove(base)
    package.loaded[name] = nil
  end
  return m
end

describe("brains", function()
  describe("by table", function()
    it("spawn is called once, at spawn, with (self, agent)", function()
      local calls = {}
      local brain = { spawn = function(self, agent) calls[#calls + 1] = { self, agent } end }
      local w = open_world()
      local a = w:spawn { brain = brain }
      assert.are.equal(1, #calls)
      assert.is_true(rawequal(a.self, calls[1][1]))
      assert.is_true(rawequal(a, calls[1][2]))
      w:step()
      w:step()
      assert.are.equal(1, #calls)
    end)

    it("update is called every step with (self, agent, dt), in spawn order", function()
      local log = {}
      local brain = { update = function(self, agent, dt) log[#log + 1] = { self, agent, dt } end }
      local w = open_world()
      local a = w:spawn { brain = brain, name = "a" }
      local b = w:spawn { brain = brain, name = "b" }
      local c = w:spawn { brain = brain, name = "c" }
      w:step()
      assert.are.equal(3, #log)
      for i, x in ipairs { a, b, c } do
        assert.is_true(rawequal(x.self, log[i][1]))
        assert.is_true(rawequal(x, log[i][2]))
        assert.near(w.dt, log[i][3], 1e-15)
      end
      log = {}
      w:remove(b)
      local d = w:spawn { brain = brain, name = "d" }
      w:step(0.25)
      assert.are.same({ "a", "c", "d" }, { log[1][1].name, log[2][1].name, log[3][1].name })
      assert.is_true(rawequal(d, log[3][2]))
      assert.are.equal(0.25, log[1][3])
    end)

    it("self holds the unknown spawn fields, already in spawn()", function()
      local seen
      local brain = { spawn = function(self) seen = self.stamina end }
      local a = open_world():spawn { brain = brain, stamina = 100 }
      assert.are.equal(100, seen)
      assert.are.equal(100, a.self.stamina)
    end)

    it("self keeps what the callbacks store", function()
      local brain = {
        spawn = function(self) self.n = 0 end,
        update = function(self) self.n = self.n + 1 end,
      }
      local w = open_world()
      local a = w:spawn { brain = brain }
      for _ = 1, 5 do w:step() end
      assert.are.equal(5, a.self.n)
    end)

    it("may leave out any callback", function()
      local w = open_world()
      local a = w:spawn { brain = {}, vel = { 60, 0 } }
      local b = w:spawn { brain = { update = function() end } }
      w:step()
      assert.is_true(a.alive and b.alive)
      assert.near(1, a.pos.x, 1e-9)
    end)

    it("steers its agent with behaviour calls", function()
      local brain = { update = function(_, agent) agent:seek({ 1000, 0 }) end }
      local w = open_world()
      local a = w:spawn { brain = brain }
      w:step()
      assert.is_true(a.force.x > 0)
      assert.is_true(a.pos.x > 0)
    end)

    it("sees the positions of the start of the step in every brain", function()
      local seen = {}
      local brain = { update = function(self, agent) seen[self.name] = agent.world:nearest(agent, 1000).pos end }
      local w = open_world()
      local a = w:spawn { brain = brain, name = "a", pos = { 0, 0 }, vel = { 60, 0 } }
      local b = w:spawn { brain = brain, name = "b", pos = { 100, 0 }, vel = { 60, 0 } }
      w:step()
      same(seen.a, 100, 0) -- b had not moved yet
      same(seen.b, 0, 0)   -- a had not moved yet
      same(a.pos, 1, 0)
      same(b.pos, 101, 0)
    end)

    it("may remove and spawn agents during the step", function()
      local w = open_world()
      local victim = w:spawn { pos = { 10, 0 } }
      local brain = {
        update = function(self, agent)
          if not self.done then
            self.done = true
            agent.world:remove(victim)
            agent.world:spawn { pos = { 50, 50 }, vel = { 60, 0 } }
          end
        end,
      }
      w:spawn { brain = brain }
      w:step()
      assert.is_false(victim.alive)
      assert.are.equal(2, w:count())
      w:step()
      assert.are.equal(2, w:count())
    end)

    it("rejects a brain that is not a table or a module name", function()
      local w = open_world()
      error_of(function() w:spawn { brain = 42 } end)
      error_of(function() w:spawn { brain = function() end } end)
      assert.are.equal(0, w:count())
    end)
  end)

  describe("by module name", function()
    it("resolves like require and shares the module table", function()
      local logger = require "fixture_logger"
      logger.log = {}
      local w = open_world()
      local a = w:spawn { brain = "fixture_logger", stamina = 7 }
      local b = w:spawn { brain = "fixture_logger" }
      w:step()
      local log = logger.log
      assert.are.equal(4, #log)
      assert.are.same({ "spawn", "spawn", "update", "update" }, { log[1][1], log[2][1], log[3][1], log[4][1] })
      assert.is_true(rawequal(a, log[1][3]))
      assert.are.equal(7, log[1][4])
      assert.is_true(rawequal(a, log[3][3]))
      assert.is_true(rawequal(b, log[4][3]))
      assert.is_true(rawequal(a.self, log[3][2]))
      assert.near(w.dt, log[3][4], 1e-15)
    end)

    it("drives its agent", function()
      local w = open_world()
      local a = w:spawn { brain = "fixture_seeker", goal = { 0, 500 } }
      for _ = 1, 30 do w:step() end
      assert.are.equal(30, a.self.steps)
      assert.is_true(a.pos.y > 10)
    end)

    it("raises for a module that does not exist", function()
      local w = open_world()
      local msg = error_of(function() w:spawn { brain = "no_such_brain_here" } end)
      assert.is_truthy(msg:find("no_such_brain_here", 1, true), msg)
      assert.are.equal(0, w:count())
    end)
  end)

  describe("runtime errors", function()
    local function faulty(at)
      return {
        spawn = function(self) self.n = 0 end,
        update = function(self)
          self.n = self.n + 1
          if self.n == at then error("brain broke at " .. at) end
        end,
      }
    end

    it("pause the brain, the agent coasts, and on_error gets (agent, message with traceback)", function()
      local w = open_world()
      local got = {}
      w.on_error = function(agent, msg) got[#got + 1] = { agent, msg } end
      local a = w:spawn { brain = faulty(3), vel = { 60, 0 } }
      for _ = 1, 10 do w:step() end
      assert.are.equal(3, a.self.n, "no update after the error")
      assert.are.equal(1, #got, "reported once")
      assert.is_true(rawequal(a, got[1][1]))
      assert.is_truthy(got[1][2]:find("brain broke at 3", 1, true), got[1][2])
      assert.is_truthy(got[1][2]:find("traceback", 1, true), "message has a traceback: " .. got[1][2])
      assert.is_true(a.alive)
      same(a.pos, 10, 0, 1e-9) -- coasted at 60 units/s for 10 steps
    end)

    it("without on_error, make world:step raise after finishing the step", function()
      local w = open_world()
      local other_updates = 0
      local a = w:spawn { brain = faulty(1), vel = { 60, 0 } }
      local b = w:spawn { brain = { update = function() other_updates = other_updates + 1 end }, vel = { 0, 60 } }
      local c = w:spawn { vel = { 60, 60 } }
      local ok, msg = pcall(w.step, w)
      assert.is_false(ok)
      assert.is_truthy(tostring(msg):find("brain broke at 1", 1, true), tostring(msg))
      assert.are.equal(1, w.tick, "the step finished")
      assert.are.equal(1, other_updates, "later brains still ran")
      same(a.pos, 1, 0)
      same(b.pos, 0, 1)
      same(c.pos, 1, 1)
      assert.has_no.errors(function() w:step() end) -- paused: raises once
      assert.are.equal(2, other_updates)
    end)

    it("raise the first error of a step", function()
      local w = open_world()
      w:spawn { brain = { update = function() error("first failure") end } }
      w:spawn { brain = { update = function() error("second failure") end } }
      local ok, msg = pcall(w.step, w)
      assert.is_false(ok)
      msg = tostring(msg)
      assert.is_truthy(msg:find("first failure", 1, true), msg)
      assert.is_falsy(msg:find("second failure", 1, true), msg)
    end)

    it("in spawn() pause the brain too", function()
      local w = open_world()
      local got = {}
      w.on_error = function(agent, msg) got[#got + 1] = { agent, msg } end
      local updates = 0
      local a = w:spawn { brain = { spawn = function() error("bad spawn") end,
                                    update = function() updates = updates + 1 end } }
      w:step()
      assert.is_true(a.alive)
      assert.are.equal(0, updates)
      assert.are.equal(1, #got)
      assert.is_truthy(got[1][2]:find("bad spawn", 1, true))
    end)

    it("on_error reads back", function()
      local w = open_world()
      local f = function() end
      w.on_error = f
      assert.are.equal(f, w.on_error)
      w.on_error = nil
      assert.is_nil(w.on_error)
    end)

    it("world:step inside a brain raises", function()
      local w = open_world()
      local result
      w:spawn { brain = { update = function(_, agent)
        result = { pcall(agent.world.step, agent.world) }
      end } }
      w:step()
      assert.is_false(result[1])
      assert.are.equal(1, w.tick)
    end)
  end)

  describe("steer.reload", function()
  if H.no_hotswap_here(it) then return end -- Lua 5.1
    local mod, w, got
    before_each(function()
      mod = temp_module()
      package.path = mod.dir .. "/?.lua;" .. package.path
      w = open_world()
      got = {}
      w.on_error = function(agent, msg) got[#got + 1] = { agent, msg } end
    end)
    after_each(function()
      mod.remove()
    end)

    local v1 = [[
      local M = {}
      function M.spawn(self) self.count = 0 end
      function M.update(self, agent)
        self.count = self.count + 1
        self.version = 1
        agent:seek({ 1000, 0 })
      end
      return M
    ]]
    local v2 = [[
      local M = {}
      function M.spawn(self) self.count = 0 end
      function M.update(self)
        self.count = self.count + 1
        self.version = 2
      end
      function M.reload(self, agent)
        self.reloads = (self.reloads or 0) + 1
        self.reload_agent = agent
      end
      return M
    ]]

    it("is a function", function()
      assert.are.equal("function", type(steer.reload))
    end)

    it("changes functions, keeps self and position, calls brain.reload once per agent", function()
      mod.write(v1)
      local a = w:spawn { brain = mod.name, stamina = 5 }
      local b = w:spawn { brain = mod.name }
      for _ = 1, 3 do w:step() end
      assert.are.equal(1, a.self.version)
      local self, pos, vel = a.self, a.pos, a.vel
      mod.write(v2)
      local ok, err = steer.reload(mod.name)
      assert.is_truthy(ok, err)
      assert.is_true(rawequal(self, a.self))
      assert.are.equal(3, a.self.count)
      assert.are.equal(5, a.self.stamina)
      assert.is_true(pos == a.pos and vel == a.vel)
      assert.are.equal(1, a.self.reloads)
      assert.are.equal(1, b.self.reloads)
      assert.is_true(rawequal(a, a.self.reload_agent))
      w:step()
      assert.are.equal(2, a.self.version)
      assert.are.equal(4, a.self.count)
      assert.are.equal(1, a.self.reloads)
      assert.are.same({}, got)
    end)

    it("updates the module table that require returns", function()
      mod.write(v1)
      w:spawn { brain = mod.name }
      local m = require(mod.name)
      mod.write(v2)
      assert.is_truthy(steer.reload(mod.name))
      assert.are.equal("function", type(m.reload))
      assert.is_true(rawequal(m, require(mod.name)))
    end)

    it("returns nil and 'file:line: message' on a syntax error, keeping the old code", function()
      mod.write(v1)
      local a = w:spawn { brain = mod.name }
      w:step()
      mod.write("local M = {}\nfunction M.update(self)\n  self.version = = 3\nend\nreturn M\n")
      local ok, err = steer.reload(mod.name)
      assert.is_nil(ok)
      assert.are.equal("string", type(err))
      assert.is_truthy(err:find(mod.name .. ".lua:3:", 1, true), err)
      w:step()
      assert.are.equal(1, a.self.version)
      assert.are.equal(2, a.self.count)
      mod.write(v2)
      assert.is_truthy(steer.reload(mod.name))
      w:step()
      assert.are.equal(2, a.self.version)
    end)

    it("returns nil and the message when the module fails to load, keeping the old code", function()
      mod.write(v1)
      local a = w:spawn { brain = mod.name }
      w:step()
      mod.write("local M = {}\n\nerror('not today')\nreturn M\n")
      local ok, err = steer.reload(mod.name)
      assert.is_nil(ok)
      assert.is_truthy(err:find(mod.name .. ".lua:3: not today", 1, true), err)
      w:step()
      assert.are.equal(1, a.self.version)
      assert.are.equal(2, a.self.count)
    end)

    it("resumes a paused brain", function()
      mod.write([[
        local M = {}
        function M.spawn(self) self.count = 0 end
        function M.update(self)
          self.count = self.count + 1
          if self.count == 2 then error("oops") end
        end
        return M
      ]])
      local a = w:spawn { brain = mod.name, vel = { 60, 0 } }
      for _ = 1, 5 do w:step() end
      assert.are.equal(2, a.self.count)
      assert.are.equal(1, #got)
      mod.write(v2)
      assert.is_truthy(steer.reload(mod.name))
      assert.are.equal(1, a.self.reloads)
      w:step()
      assert.are.equal(3, a.self.count)
      assert.are.equal(2, a.self.version)
      same(a.pos, 6, 0, 1e-9) -- coasted at 60 units/s while paused, no force since
    end)
  end)
end)
