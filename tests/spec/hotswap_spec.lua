-- Deep hot reload (bindings/hotswap.c, README "Hot reload"): class tables
-- in the styles of middleclass, classic and stateful keep their identity and
-- take the new methods, helper modules keep their state, data follows the
-- three-way rule, and the report says what changed. Driven from stock Lua
-- through steer.reload, with modules written to a temp folder.
local steer = require "steer"
local Spec = require "spec_helper"

package.path = "tests/spec/fixtures/?.lua;" .. package.path

-- A folder of modules of our own. Sources may say `$` for the unique
-- prefix of this project's module names (so specs never share a module).
local function project(files)
  local base = os.tmpname()
  os.remove(base)
  local dir = base .. "_d"
  assert(os.execute("mkdir -p '" .. dir .. "'"))
  local prefix = "hs" .. base:match("([%w_]+)$") .. "_"
  local p = { dir = dir, prefix = prefix, src = {} }
  package.path = dir .. "/?.lua;" .. package.path
  function p.name(short) return prefix .. short end
  function p.write(short, src)
    p.src[short] = src
    local f = assert(io.open(dir .. "/" .. prefix .. short .. ".lua", "w"))
    f:write((src:gsub("%$", prefix)))
    f:close()
  end
  -- rewrites a module: every (plain) `from` becomes `to`, which must occur
  function p.edit(short, from, to)
    local s, n = p.src[short]:gsub(from:gsub("%p", "%%%0"), (to:gsub("%%", "%%%%")))
    assert(n > 0, "edit: '" .. from .. "' not in " .. short)
    p.write(short, s)
  end
  function p.reload(short)
    local ok, info = steer.reload(prefix .. short)
    assert(ok, info)
    return info
  end
  function p.cleanup()
    for short in pairs(p.src) do
      os.remove(dir .. "/" .. prefix .. short .. ".lua")
      package.loaded[prefix .. short] = nil
    end
    os.remove(dir)
  end
  for short, src in pairs(files) do p.write(short, src) end
  return p
end

local function count(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end

describe("deep reload", function()
  if Spec.no_hotswap_here(it) then return end -- Lua 5.1
  local it_data = Spec.hotswap_data and it or pending -- Lua 5.4 only: see spec_helper
  local p
  after_each(function() if p then p.cleanup() end p = nil end)

  describe("middleclass style (instance dicts, two levels of inheritance, a mixin)", function()
    local zoo = [[
      local class = require "mini_middleclass"
      local tricks = require "$tricks"
      local VERSION = "v1"
      local Animal = class("Animal")
      function Animal:initialize(n) self.n = n end
      function Animal:sound() return "..." end
      function Animal:describe() return self:sound() .. " " .. VERSION end
      local Dog = class("Dog", Animal)
      function Dog:sound() return "woof" end
      local Puppy = class("Puppy", Dog)
      function Puppy:sound() return "yip" end
      Puppy:include(tricks.Mixin)
      local brain = {}
      function brain.spawn(self) self.pet = (self.kind == "dog" and Dog or Puppy):new(1) end
      function brain.update(self)
        self.said = self.pet:describe()
        self.trick = self.pet.trick and self.pet:trick()
      end
      return brain
    ]]
    local tricks = [[
      local M = { Mixin = {} }
      function M.Mixin:trick() return "sit" end
      return M
    ]]
    local w, agents
    before_each(function()
      p = project { zoo = zoo, tricks = tricks }
      w = steer.world {}
      agents = {}
      for i = 1, 100 do agents[i] = w:spawn { brain = p.name("zoo"), kind = i % 2 == 0 and "dog" or "puppy" } end
      w:step()
    end)

    local function said()
      local out = {}
      for _, a in ipairs(agents) do out[a.self.said] = (out[a.self.said] or 0) + 1 end
      return out
    end

    it("a method edited while 100 instances exist changes every one of them on the next step", function()
      assert.are.same({ ["woof v1"] = 50, ["yip v1"] = 50 }, said())
      local pets, mts = {}, {}
      for i, a in ipairs(agents) do pets[i], mts[i] = a.self.pet, getmetatable(a.self.pet) end
      p.edit("zoo", 'function Dog:sound() return "woof" end', 'function Dog:sound() return "WOOF" end')
      local info = p.reload("zoo")
      print(("\n  middleclass edit of Dog:sound: %d functions replaced, %d classes patched, %d agents")
        :format(info.functions, info.classes, info.agents))
      assert.are.equal(1, info.functions)
      assert.are.equal(100, info.agents)
      assert.is_true(info.classes >= 1)
      assert.is_true(info.changed)
      w:step()
      assert.are.same({ ["WOOF v1"] = 50, ["yip v1"] = 50 }, said())
      for i, a in ipairs(agents) do
        assert.is_true(rawequal(pets[i], a.self.pet))
        assert.is_true(rawequal(mts[i], getmetatable(a.self.pet)))
      end
    end)

    it("a grandparent's method reaches the grandchildren (copied down by the class library)", function()
      p.edit("zoo", 'return self:sound() .. " " .. VERSION', 'return "[" .. self:sound() .. "] " .. VERSION')
      local info = p.reload("zoo")
      assert.are.equal(1, info.functions)
      assert.is_true(info.classes >= 3, "Animal, Dog and Puppy dicts all hold describe")
      w:step()
      assert.are.same({ ["[woof] v1"] = 50, ["[yip] v1"] = 50 }, said())
      assert.is_true(agents[1].self.pet:isInstanceOf(agents[1].self.pet.class.super))
    end)

    it("a module-local literal changed in the source reaches every instance", function()
      p.edit("zoo", 'local VERSION = "v1"', 'local VERSION = "v2"')
      local info = p.reload("zoo")
      assert.are.equal(0, info.functions)
      assert.are.equal(1, info.values)
      w:step()
      assert.are.same({ ["woof v2"] = 50, ["yip v2"] = 50 }, said())
    end)

    it("a mixin edited in its own module reaches the classes that copied it in", function()
      assert.are.equal("sit", agents[1].self.trick)
      p.edit("tricks", 'return "sit"', 'return "roll over"')
      local info = p.reload("tricks")
      assert.are.equal(1, info.functions)
      w:step()
      for i, a in ipairs(agents) do
        if i % 2 == 1 then assert.are.equal("roll over", a.self.trick) end
      end
    end)

    it("new instances made after the reload use the same (patched) class tables", function()
      local old_class = agents[2].self.pet.class
      p.edit("zoo", 'return "woof"', 'return "arf"')
      p.reload("zoo")
      local a = w:spawn { brain = p.name("zoo"), kind = "dog" }
      w:step()
      assert.is_true(rawequal(old_class, a.self.pet.class))
      assert.are.equal("arf v1", a.self.said)
      assert.are.equal("arf v1", agents[2].self.said)
    end)
  end)

  describe("classic style (class = metatable chain, implement)", function()
    local herd = [[
      local Object = require "mini_classic"
      local Vehicle = Object:extend()
      function Vehicle:new(speed) self.speed = speed end
      function Vehicle:label() return "vehicle" end
      local Car = Vehicle:extend()
      function Car:label() return "car " .. Car.super.label(self) end
      local Racer = Car:extend()
      function Racer:label() return "racer " .. Racer.super.label(self) end
      local Honk = {}
      function Honk:honk() return "beep" end
      Racer:implement(Honk)
      local brain = {}
      function brain.spawn(self) self.v = Racer(10) end
      function brain.update(self) self.label = self.v:label() .. " " .. self.v:honk() end
      return brain
    ]]

    it("methods at the root and in a mixin change for every instance", function()
      p = project { herd = herd }
      local w = steer.world {}
      local agents = {}
      for i = 1, 100 do agents[i] = w:spawn { brain = p.name("herd") } end
      w:step()
      assert.are.equal("racer car vehicle beep", agents[100].self.label)
      p.edit("herd", 'return "vehicle"', 'return "VEHICLE"')
      p.edit("herd", 'return "beep"', 'return "BEEP"')
      local info = p.reload("herd")
      assert.are.equal(2, info.functions) -- label and honk (the copy in Racer is the same function)
      assert.is_true(info.classes >= 2)
      w:step()
      for _, a in ipairs(agents) do
        assert.are.equal("racer car VEHICLE BEEP", a.self.label)
        assert.are.equal(10, a.self.v.speed)
      end
    end)
  end)

  describe("stateful style (a state stack per instance)", function()
    local guard = [[
      local class = require "mini_middleclass"
      local Stateful = require "mini_stateful"
      local Guard = class("Guard"):include(Stateful)
      function Guard:speak() return "hm" end
      local Patrol = Guard:addState("Patrol")
      function Patrol:speak() return "patrolling" end
      local Alert = Guard:addState("Alert")
      function Alert:speak() return "halt!" end
      local brain = {}
      function brain.spawn(self, agent)
        self.g = Guard:new()
        self.g:gotoState("Patrol")
        if agent.id % 2 == 0 then self.g:pushState("Alert") end
      end
      function brain.update(self) self.said = self.g:speak() end
      return brain
    ]]

    it("a state's method edited reaches instances with that state on their stack", function()
      p = project { guard = guard }
      local w = steer.world {}
      local agents = {}
      for i = 1, 100 do agents[i] = w:spawn { brain = p.name("guard") } end
      w:step()
      local stacks = {}
      for i, a in ipairs(agents) do stacks[i] = a.self.g.__stateStack end
      assert.are.equal("halt!", agents[2].self.said)
      assert.are.equal("patrolling", agents[1].self.said)
      p.edit("guard", 'return "halt!"', 'return "stop right there"')
      local info = p.reload("guard")
      assert.are.equal(1, info.functions)
      w:step()
      for i, a in ipairs(agents) do
        assert.is_true(rawequal(stacks[i], a.self.g.__stateStack))
        assert.are.equal(a.id % 2 == 0 and "stop right there" or "patrolling", a.self.said)
      end
      -- popping the (patched) state falls back to the patched Patrol state
      agents[2].self.g:popState()
      w:step()
      assert.are.equal("patrolling", agents[2].self.said)
    end)
  end)

  describe("helper modules", function()
    local helper = [[
      local M = { n = 0, step = 1 }
      local calls = 0
      function M.bump() M.n = M.n + M.step; calls = calls + 1; return "a" end
      function M.calls() return calls end
      return M
    ]]
    local user = [[
      local helper = require "$helper"
      local bump = helper.bump -- cached function, not just the table
      local brain = {}
      function brain.update(self) self.got = bump(); self.got2 = helper.bump() end
      return brain
    ]]
    local w, agents, H
    before_each(function()
      p = project { helper = helper, user = user }
      w = steer.world {}
      agents = {}
      for i = 1, 10 do agents[i] = w:spawn { brain = p.name("user") } end
      H = require(p.name("helper"))
      for _ = 1, 3 do w:step() end
      assert.are.equal(60, H.n)
    end)

    it_data("keep their state across their own edit; brains see the new functions", function()
      H.extra = "added at run time"
      p.edit("helper", 'return "a"', 'return "b"')
      local info = p.reload("helper")
      print(("\n  helper edit: n = %d, calls = %d after the reload (%d functions replaced)")
        :format(H.n, H.calls(), info.functions))
      assert.is_true(rawequal(H, require(p.name("helper"))))
      assert.are.equal(60, H.n)
      assert.are.equal(60, H.calls())
      assert.are.equal("added at run time", H.extra)
      assert.are.equal(1, info.functions)
      w:step()
      for _, a in ipairs(agents) do
        assert.are.equal("b", a.self.got)
        assert.are.equal("b", a.self.got2)
      end
      assert.are.equal(80, H.n)
      assert.are.equal(80, H.calls())
    end)

    it_data("take a literal the source changed, keep the run-time value of the ones it did not", function()
      p.edit("helper", "step = 1", "step = 5")
      local info = p.reload("helper")
      assert.are.equal(1, info.values)
      assert.are.equal(0, info.functions)
      assert.are.equal(60, H.n)
      assert.are.equal(5, H.step)
      w:step()
      assert.are.equal(160, H.n)
      -- the run-time value of step now survives an edit elsewhere
      H.step = 7
      p.edit("helper", 'return "a"', 'return "c"')
      p.reload("helper")
      assert.are.equal(7, H.step)
    end)

    it("lose a field the source no longer makes, keep one added at run time", function()
      H.extra = 1
      p.write("helper", [[
        local M = { n = 0, step = 1 }
        function M.bump() M.n = M.n + M.step; return "a" end
        return M
      ]])
      local info = p.reload("helper")
      assert.is_nil(H.calls)
      assert.are.equal(1, H.extra)
      assert.are.equal(1, info.removed)
    end)

    it_data("report no change for the same code, a comment, or code moved to other lines", function()
      local info = p.reload("helper")
      assert.is_false(info.changed)
      assert.are.equal(0, info.functions + info.values + info.added + info.removed)
      p.edit("helper", "local calls = 0", "local calls = 0 -- bumps so far")
      info = p.reload("helper")
      assert.is_false(info.changed)
      -- lines added above move every function: still the same code
      p.write("helper", "-- a comment\n-- on two lines\n\n" .. p.src.helper)
      info = p.reload("helper")
      assert.is_false(info.changed)
      assert.are.equal(2, info.unchanged)
      -- while a changed constant in a function is a change
      p.edit("helper", 'return "a"', 'return "z"')
      info = p.reload("helper")
      assert.is_true(info.changed)
      assert.are.equal(1, info.functions)
      assert.are.equal(60, H.n)
    end)
  end)

  describe("functions kept in self", function()
    it("a module function stored in self becomes the new one; a closure made at run time keeps its body", function()
      p = project { thinker = [[
        local V = 1
        local brain = {}
        function brain.think() return "old think" end
        function brain.spawn(self)
          self.think = brain.think
          self.closure = function() return "old body " .. V end
        end
        return brain
      ]] }
      local w = steer.world {}
      local a = w:spawn { brain = p.name("thinker") }
      p.edit("thinker", '"old think"', '"new think"')
      p.edit("thinker", '"old body "', '"new body "')
      p.edit("thinker", "local V = 1", "local V = 2")
      p.reload("thinker")
      assert.are.equal("new think", a.self.think())
      -- the documented limit: the body stays, the module variable it reads is the shared one
      assert.are.equal("old body 2", a.self.closure())
    end)
  end)

  describe("graphs", function()
    it("cycles and shared tables are merged once, identities kept", function()
      p = project { cyc = [[
        local a, b = { name = "a" }, { name = "b" }
        a.other, b.other, a.self = b, a, a
        setmetatable(a, { __index = b })
        local M = { a = a, b = b, also_a = a }
        function M.f() return "f1" end
        return M
      ]] }
      local M = require(p.name("cyc"))
      local a, b = M.a, M.b
      p.edit("cyc", '"f1"', '"f2"')
      local info = p.reload("cyc")
      assert.are.equal(1, info.functions)
      assert.is_true(rawequal(a, M.a) and rawequal(b, M.b) and rawequal(a, M.also_a))
      assert.is_true(rawequal(a.other, b) and rawequal(b.other, a) and rawequal(a.self, a))
      assert.are.equal("f2", M.f())
    end)

    it_data("never merges into another module's tables", function()
      p = project {
        lib = "return { cfg = { a = 1, b = 2 } }",
        user2 = 'local lib = require "$lib"\nreturn { cfg = lib.cfg }',
      }
      local U, Lib = require(p.name("user2")), require(p.name("lib"))
      assert.is_true(rawequal(Lib.cfg, U.cfg))
      p.write("user2", "return { cfg = { a = 9 } }")
      p.reload("user2")
      assert.are.same({ a = 1, b = 2 }, Lib.cfg)
      assert.are.same({ a = 9 }, U.cfg)
    end)

    it("a first load through steer.reload records the baseline too", function()
      p = project { late = [[
        local M = { n = 0, k = 1 }
        function M.f() return 1 end
        return M
      ]] }
      local ok, info = steer.reload(p.name("late"))
      assert.is_true(ok)
      assert.is_true(info.first)
      local M = require(p.name("late"))
      M.n = 9
      p.edit("late", "k = 1", "k = 2")
      p.reload("late")
      assert.are.equal(9, M.n)
      assert.are.equal(2, M.k)
      assert.are.equal(2, count(M) - 1)
    end)
  end)
end)
