-- fsm_spec.lua — steer.fsm (scripts/steer/fsm.lua): flat machines as the
-- 1.0 fsm.lua ran them (and the "fsm" shim), sub-states entered and left in
-- order, a global state, messages offered to the current state, its parents
-- and the global state, revert, errors, and a reload that renames a state.
local Spec = require "spec_helper"
local fsm = require "steer.fsm"

-- A state that logs its enter/exit as "+name" / "-name".
local function logged(log, name, extra)
  local s = extra or {}
  s.enter = function() log[#log + 1] = "+" .. name end
  s.exit = function() log[#log + 1] = "-" .. name end
  return s
end

describe("steer.fsm", function()
  it("is what require \"fsm\" gives (scenes of 1.0 and 1.1 keep working)", function()
    assert.are.equal(fsm, require "fsm")
  end)

  describe("flat machines", function()
    it("start enters the initial state; update's returned name changes state", function()
      local log = {}
      local m = fsm.new({
        idle = logged(log, "idle", { update = function(self) if self.go then return "run" end end }),
        run = logged(log, "run", { update = function(self) self.ran = (self.ran or 0) + 1 end }),
      }, "idle")
      local self = {}
      m:start(self, nil)
      m:update(self, nil, 0.5)
      assert.are.equal("idle", self.state)
      assert.are.equal(0.5, self.state_time)
      self.go = true
      m:update(self, nil, 0.5)
      assert.are.same({ "+idle", "-idle", "+run" }, log)
      assert.are.equal("run", self.state)
      assert.are.equal("idle", self.previous_state)
      assert.are.equal(0, self.state_time)
      assert.are.equal(1, self.transitions)
      m:update(self, nil, 0.5)
      assert.are.equal(1, self.ran)
    end)

    it("a state that vanished (a reload renamed it) restarts the machine in its initial state", function()
      local m = fsm.new({ a = {}, b = {} }, "a")
      local self = { state = "gone" }
      m:update(self, nil, 0.1)
      assert.are.equal("a", self.state)
    end)
  end)

  describe("sub-states", function()
    local log, m
    before_each(function()
      log = {}
      m = fsm.new({
        patrol = logged(log, "patrol"),
        combat = logged(log, "combat", {
          initial = "aim",
          update = function(self) if self.hp < 10 then return "flee" end end,
          states = {
            aim = logged(log, "aim", { update = function(self) if self.ready then return "fire" end end }),
            fire = logged(log, "fire", { update = function(self) self.shots = (self.shots or 0) + 1 end }),
          },
        }),
        flee = logged(log, "flee"),
      }, "patrol")
    end)

    it("entering a parent enters its initial sub-state; a move inside it does not leave it", function()
      local self = { hp = 50 }
      m:start(self, nil)
      m:change(self, nil, "combat")
      assert.are.equal("aim", self.state)
      assert.is_true(m:is_in(self, "combat"))
      self.ready = true
      m:update(self, nil, 0.1)
      assert.are.equal("fire", self.state)
      assert.are.same({ "+patrol", "-patrol", "+combat", "+aim", "-aim", "+fire" }, log)
    end)

    it("a parent's update runs first and can leave from any sub-state, exiting inner to outer", function()
      local self = { hp = 50, ready = true }
      m:start(self, nil, "fire")
      assert.are.same({ "+combat", "+fire" }, log)
      m:update(self, nil, 0.1)
      assert.are.equal(1, self.shots)
      self.hp = 5
      m:update(self, nil, 0.1)
      assert.are.equal("flee", self.state)
      assert.are.equal(1, self.shots) -- the parent's change ended the tick
      assert.are.same({ "+combat", "+fire", "-fire", "-combat", "+flee" }, log)
      assert.is_false(m:is_in(self, "combat"))
    end)

    it("revert goes back to the previous state", function()
      local self = { hp = 50 }
      m:start(self, nil)
      m:change(self, nil, "fire")
      m:revert(self, nil)
      assert.are.equal("patrol", self.state)
    end)
  end)

  describe("messages and the global state", function()
    it("tries the current state, then its parents, then the global state", function()
      local got = {}
      local m = fsm.new({
        work = { initial = "dig", message = function(_, _, msg)
            if msg.kind == "break" then got[#got + 1] = "work" return "rest" end
          end,
          states = { dig = { message = function(_, _, msg)
            if msg.kind == "rock" then got[#got + 1] = "dig" return true end
          end } } },
        rest = {},
        hurt = {},
      }, "work", { global = {
        update = function(self) if self.hp <= 0 then return "hurt" end end,
        message = function(_, _, msg) if msg.kind == "hit" then got[#got + 1] = "global" return "hurt" end end,
      } })
      local self = { hp = 1 }
      m:start(self, nil)
      assert.is_true(m:handle(self, nil, { kind = "rock" }))
      assert.are.equal("dig", self.state)
      assert.is_true(m:handle(self, nil, { kind = "break" }))
      assert.are.equal("rest", self.state)
      assert.is_false(m:handle(self, nil, { kind = "rock" }))
      assert.is_true(m:handle(self, nil, { kind = "hit" }))
      assert.are.equal("hurt", self.state)
      assert.are.same({ "dig", "work", "global" }, got)
      m:change(self, nil, "work")
      self.hp = 0
      m:update(self, nil, 0.1) -- the global state's update runs first
      assert.are.equal("hurt", self.state)
    end)
  end)

  describe("bad input", function()
    it("raises in Lua's standard form", function()
      Spec.raises(function() fsm.new(nil, "a") end, "bad argument #1 to 'new' (table of states expected, got nil)")
      Spec.raises(function() fsm.new({ a = {} }, "b") end, "bad argument #2 to 'new' (no state named 'b')")
      Spec.raises(function() fsm.new({ a = { update = 3 } }, "a") end, "state 'a': update must be a function")
      Spec.raises(function() fsm.new({ a = { states = { a = {} }, initial = "a" } }, "a") end,
        "two states named 'a'")
      Spec.raises(function() fsm.new({ p = { states = { c = {} } } }, "p") end, "initial must name one of its states")
      Spec.raises(function() fsm.new({ a = {} }, "a", { global = 1 }) end, "bad argument #3 to 'new'")
      local m = fsm.new({ a = {} }, "a")
      Spec.raises(function() m:change({ state = "a" }, nil, "zz") end, "no state named 'zz'")
      Spec.raises(function() m:update({}, nil, 0 / 0) end, "bad argument #3 to 'update'")
      local ok, err = pcall(function() fsm.new({}, "x") end)
      assert.is_false(ok)
      assert.truthy(err:find("fsm_spec.lua:%d+: bad argument"))
    end)
  end)
end)
