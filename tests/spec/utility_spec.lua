-- utility_spec.lua — steer.utility (scripts/steer/utility.lua): response
-- curves, scores from considerations, the best option taken with hysteresis
-- (bonus and margin), enter/exit/run, errors, and determinism in a world.
local Spec = require "spec_helper"
local utility = require "steer.utility"
local curve = utility.curve

describe("steer.utility", function()
  describe("curves", function()
    it("map 0..1 into 0..1 with the documented shapes", function()
      local lin, inv = curve.linear(), curve.linear(-1, 1)
      assert.are.equal(0.25, lin(0.25))
      assert.are.equal(0.75, inv(0.25))
      assert.are.equal(1, curve.linear(2)(0.75)) -- clamped
      assert.are.equal(0.25, curve.quadratic()(0.5))
      assert.near(0.125, curve.quadratic(3)(0.5), 1e-12)
      assert.near(0.5, curve.logistic()(0.5), 1e-12)
      assert.is_true(curve.logistic(10, 0.5)(0.1) < 0.05)
      assert.is_true(curve.logistic(10, 0.5)(0.9) > 0.95)
      assert.are.equal(0, curve.step(0.3)(0.29))
      assert.are.equal(1, curve.step(0.3)(0.3))
      assert.are.equal(0.2, curve.step(0.5, 0.2, 0.9)(0.1))
      assert.are.equal(0.75, curve.inverse()(0.25))
      assert.are.equal(0.4, curve.constant(0.4)(123))
    end)

    it("reject bad parameters", function()
      Spec.raises(function() curve.linear("x") end, "bad argument #1 to 'linear' (finite number expected, got string)")
      Spec.raises(function() curve.quadratic(0) end, "bad argument #1 to 'quadratic' (exponent must be > 0)")
      Spec.raises(function() curve.logistic(0 / 0) end, "bad argument #1 to 'logistic'")
      Spec.raises(function() curve.step(0.5, math.huge) end, "bad argument #2 to 'step'")
    end)
  end)

  describe("scores", function()
    it("are the weight times the compensated product of the considerations", function()
      local one = { name = "one", weight = 2, considerations = {
        { input = function(self) return self.x end, range = { 0, 10 } } } }
      assert.are.equal(1, utility.score(one, { x = 5 }))   -- 2 * 0.5
      assert.are.equal(2, utility.score(one, { x = 50 }))  -- clamped to 1
      local two = { name = "two", considerations = {
        { input = function() return 0.5 end }, { input = function() return 0.5 end } } }
      -- each 0.5 made up by (1 - 0.5) * (1 - 1/2) * 0.5 = 0.125: 0.625^2
      assert.near(0.390625, utility.score(two, {}), 1e-12)
      local zero = { name = "z", considerations = { { input = function() return 0 end },
        { input = function() error("not reached") end } } }
      assert.are.equal(0, utility.score(zero, {}))
    end)

    it("an input that is not a number raises, naming the option", function()
      local o = { name = "bad", considerations = { { input = function() return 0 / 0 end } } }
      Spec.raises(function() utility.score(o, {}) end, "option 'bad', consideration 1: input returned")
    end)
  end)

  describe("selection", function()
    -- two options whose scores the test sets through self
    local function machine(opts, log)
      return utility.new({
        { name = "a", considerations = { { input = function(self) return self.a end } },
          enter = function() log[#log + 1] = "+a" end, exit = function() log[#log + 1] = "-a" end,
          run = function(self) self.ran = "a" end },
        { name = "b", considerations = { { input = function(self) return self.b end } },
          enter = function() log[#log + 1] = "+b" end, exit = function() log[#log + 1] = "-b" end,
          run = function(self) self.ran = "b" end },
      }, opts)
    end

    it("takes the best option, the earlier on a tie, and runs it", function()
      local log = {}
      local m = machine(nil, log)
      local self = { a = 0.5, b = 0.5 }
      assert.are.equal("a", m:update(self, nil, 0.1))
      assert.are.equal("a", self.ran)
      self.b = 0.6
      local name, score = m:select(self, nil)
      assert.are.equal("b", name)
      assert.are.equal(0.6, score)
      assert.are.same({ "+a", "-a", "+b" }, log)
      assert.are.equal(2, self.utility.switches)
      assert.are.equal(0.5, self.utility.scores.a)
    end)

    it("a bonus keeps the current option against a slightly better one", function()
      local log = {}
      local m = machine({ bonus = 0.1 }, log)
      local self = { a = 0.5, b = 0.3 }
      m:update(self, nil, 0.1)
      self.b = 0.55
      assert.are.equal("a", m:update(self, nil, 0.1))
      self.b = 0.65
      assert.are.equal("b", m:update(self, nil, 0.1))
      self.a = 0.7 -- a now beats b by 0.05 < bonus: b stays
      assert.are.equal("b", m:update(self, nil, 0.1))
      assert.are.equal(0.2, self.utility.time)
    end)

    it("a margin makes a challenger beat the current option by more than it", function()
      local m = machine({ margin = 0.2 }, {})
      local self = { a = 0.5, b = 0.1 }
      m:update(self, nil, 0.1)
      self.b = 0.7
      assert.are.equal("a", m:select(self, nil))
      self.b = 0.71
      assert.are.equal("b", m:select(self, nil))
    end)

    it("without hysteresis the choice flips with every crossing", function()
      local m = machine(nil, {})
      local self = { a = 0.5, b = 0.49 }
      local flips = 0
      local last = m:select(self, nil)
      for i = 1, 10 do
        self.b = i % 2 == 0 and 0.49 or 0.51
        local now = m:select(self, nil)
        if now ~= last then flips = flips + 1 end
        last = now
      end
      assert.are.equal(10, flips)
      local calm = machine({ bonus = 0.05 }, {})
      local s2 = { a = 0.5, b = 0.49 }
      calm:select(s2, nil)
      for i = 1, 10 do
        s2.b = i % 2 == 0 and 0.49 or 0.51
        assert.are.equal("a", calm:select(s2, nil))
      end
    end)

    it("keeps its state in self[key]", function()
      local m = utility.new({ { name = "only", considerations = {} } }, { key = "mood" })
      local self = {}
      m:select(self, nil)
      assert.are.equal("only", self.mood.current)
    end)
  end)

  describe("bad input", function()
    it("raises in Lua's standard form", function()
      Spec.raises(function() utility.new({}) end, "bad argument #1 to 'new' (non-empty list of options expected)")
      Spec.raises(function() utility.new({ { considerations = {} } }) end, "option 1: name must be a string")
      Spec.raises(function()
        utility.new({ { name = "x", considerations = {} }, { name = "x", considerations = {} } })
      end, "two options named 'x'")
      Spec.raises(function() utility.new({ { name = "x" } }) end, "considerations must be a table")
      Spec.raises(function() utility.new({ { name = "x", considerations = { { input = 1 } } } }) end,
        "option 'x', consideration 1: input must be a function")
      Spec.raises(function()
        utility.new({ { name = "x", considerations = { { input = print, range = { 1, 1 } } } } })
      end, "range must be { lo, hi }")
      Spec.raises(function() utility.new({ { name = "x", weight = -1, considerations = {} } }) end,
        "weight must be a finite number >= 0")
      Spec.raises(function() utility.new({ { name = "x", considerations = {} } }, { bonus = 0 / 0 }) end,
        "bad argument #2 to 'new' (bonus must be a finite number >= 0)")
      local m = utility.new({ { name = "x", considerations = {} } })
      Spec.raises(function() m:select(nil) end, "bad argument #1 to 'select' (table expected, got nil)")
      Spec.raises(function() m:update({}, nil, -1) end, "bad argument #3 to 'update'")
      local ok, err = pcall(function() utility.new(nil) end)
      assert.is_false(ok)
      assert.truthy(err:find("utility_spec.lua:%d+: bad argument"))
    end)
  end)
end)

describe("steer.utility in a world", function()
  local steer = require "steer"
  local function run(threads)
    -- flee when crowded, seek the centre when far from it, else wander
    local choice = utility.new({
      { name = "flee", considerations = { { input = function(_, agent)
          return #agent.world:neighbors(agent, 40) end, range = { 0, 6 }, curve = curve.quadratic(2) } },
        run = function(_, agent) agent:flee(agent.world:neighbors(agent, 40)[1].pos) end },
      { name = "home", considerations = { { input = function(_, agent)
          return agent.pos:dist(steer.vec2(200, 200)) end, range = { 50, 200 }, curve = curve.logistic(8, 0.6) } },
        run = function(_, agent) agent:seek(steer.vec2(200, 200)) end },
      { name = "wander", weight = 0.3, considerations = {}, run = function(_, agent) agent:wander() end },
    }, { bonus = 0.1 })
    package.loaded.utility_spec_brain = { update = function(self, agent, dt) choice:update(self, agent, dt) end }
    local w = steer.world { width = 400, height = 400, seed = 11, threads = threads }
    for _ = 1, 80 do
      w:spawn { pos = { w:random() * 400, w:random() * 400 }, brain = "utility_spec_brain", max_speed = 70 }
    end
    for _ = 1, 150 do w:step() end
    local seen = {}
    for a in w:agents() do seen[a.self.utility.current] = true end
    package.loaded.utility_spec_brain = nil
    return w:checksum(), seen
  end

  it("gives the same checksum on 1 and 2 threads, with more than one option in use", function()
    local c1, seen = run(1)
    assert.are.equal(c1, (run(2)))
    local n = 0
    for _ in pairs(seen) do n = n + 1 end
    assert.is_true(n >= 2)
  end)
end)
