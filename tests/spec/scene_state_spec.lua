-- world.user (the scene's own state, kept with the world) and
-- steer.install_random (math.random on a world's stream, as in the app).
local steer = require "steer"
local H = require "spec_helper"

local error_of = H.error_of

describe("world.user", function()
  it("is a table, the same one on every read", function()
    local w = steer.world {}
    assert.are.equal("table", type(w.user))
    assert.is_true(rawequal(w.user, w.user))
    w.user.score = 3
    assert.are.equal(3, w.user.score)
  end)

  it("is the world's own: another world has another table", function()
    local a, b = steer.world {}, steer.world {}
    a.user.x = 1
    assert.is_nil(b.user.x)
    assert.is_false(rawequal(a.user, b.user))
  end)

  it("may be replaced by a table, and only by a table", function()
    local w = steer.world {}
    local t = { kept = true }
    w.user = t
    assert.is_true(rawequal(t, w.user))
    assert.matches("invalid value for field 'user' %(table expected, got number%)", error_of(function() w.user = 1 end))
    assert.matches("table expected, got nil", error_of(function() w.user = nil end))
    assert.is_true(rawequal(t, w.user))
  end)

  it("is what brains see through agent.world", function()
    local w = steer.world {}
    w.user.hits = 0
    local brain = { update = function(_, agent) agent.world.user.hits = agent.world.user.hits + 1 end }
    for _ = 1, 3 do w:spawn { brain = brain } end
    w:step()
    w:step()
    assert.are.equal(6, w.user.hits)
  end)

  it("other unknown fields still raise", function()
    local w = steer.world {}
    assert.matches("no field 'stats' in steer.world", error_of(function() w.stats = {} end))
  end)
end)

describe("steer.install_random", function()
  local stock_random, stock_seed
  before_each(function() stock_random, stock_seed = math.random, math.randomseed end)
  after_each(function() steer.install_random(nil) end)

  it("makes math.random draw from the world's stream: same seed, same numbers", function()
    local function draws(seed)
      steer.install_random(steer.world { seed = seed })
      local out = {}
      for _ = 1, 20 do
        out[#out + 1] = math.random()
        out[#out + 1] = math.random(6)
        out[#out + 1] = math.random(-5, 5)
        out[#out + 1] = math.random(0)
        out[#out + 1] = math.random(-2 ^ 50, 2 ^ 50)
      end
      return out
    end
    local a, b, c = draws(7), draws(7), draws(8)
    assert.are.same(a, b)
    assert.are_not.same(a, c)
    for i = 1, #a, 5 do
      assert.is_true(a[i] >= 0 and a[i] < 1)
      assert.is_true(a[i + 1] >= 1 and a[i + 1] <= 6 and math.type(a[i + 1]) == "integer")
      assert.is_true(a[i + 2] >= -5 and a[i + 2] <= 5)
    end
  end)

  it("math.random() is the world's own draw, and consumes it", function()
    local w1, w2 = steer.world { seed = 3 }, steer.world { seed = 3 }
    steer.install_random(w1)
    local x = math.random()
    assert.are.equal(w2:random(), x)
    assert.are.equal(w2:random(), w1:random())
  end)

  it("keeps the rules of math.random", function()
    steer.install_random(steer.world {})
    assert.matches("interval is empty", error_of(function() return math.random(3, 2) end))
    assert.matches("wrong number of arguments", error_of(function() return math.random(1, 2, 3) end))
    assert.matches("number expected", error_of(function() return math.random("x") end))
    math.randomseed(99) -- the world's seed is the only seed: no error, no effect
  end)

  it("nil puts the stock functions back; a non-world is refused", function()
    steer.install_random(steer.world {})
    assert.are_not.equal(stock_random, math.random)
    steer.install_random(nil)
    assert.are.equal(stock_random, math.random)
    assert.are.equal(stock_seed, math.randomseed)
    assert.matches("steer.world expected", error_of(function() steer.install_random({}) end))
    assert.are.equal(stock_random, math.random)
  end)
end)
