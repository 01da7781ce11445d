-- Same seed + same script => same checksum; different seed => different
-- (API.md, world:checksum; DESIGN.md, "One step").
local steer = require "steer"

-- A busy little world: standing wander and flock, brains that call
-- behaviours and draw from the world's random stream, removals and spawns.
local function run(seed, steps)
  local w = steer.world { width = 600, height = 400, edges = "wrap", seed = seed }
  local brain = {
    update = function(self, agent)
      agent:wander(0.5)
      agent:flock { radius = 40 }
      if agent.world:random() < 0.01 then self.turns = (self.turns or 0) + 1 end
    end,
  }
  local function spawn_one(i)
    local pos = { w:random() * 600, w:random() * 400 }
    local vel = steer.vec2.from_angle(w:random() * 2 * math.pi, 40)
    if i % 2 == 0 then
      return w:spawn { pos = pos, vel = vel, brain = brain, tag = "b" }
    end
    return w:spawn { pos = pos, vel = vel, tag = "s",
                     behaviors = { { "flock", radius = 50 }, { "wander", weight = 0.3 } } }
  end
  for i = 1, 80 do spawn_one(i) end
  local sums = {}
  for t = 1, steps do
    w:step()
    if t % 100 == 0 then
      local iter, state, control = w:agents()
      w:remove(iter(state, control)) -- the oldest agent
      spawn_one(t)
      sums[#sums + 1] = w:checksum()
    end
  end
  return w:checksum(), sums
end

describe("determinism", function()
  it("same seed and script give the same checksum over 600 steps", function()
    local c1, s1 = run(1234, 600)
    local c2, s2 = run(1234, 600)
    assert.is_truthy(c1:match("^%x+$") and #c1 == 16, c1)
    assert.are.equal(c1, c2)
    assert.are.same(s1, s2)
  end)

  it("a different seed gives a different checksum", function()
    local c1, s1 = run(1234, 600)
    local c2, s2 = run(1235, 600)
    assert.are_not.equal(c1, c2)
    for i = 1, #s1 do
      assert.are_not.equal(s1[i], s2[i], "checkpoint " .. i)
    end
  end)

  it("another world stepping in between changes nothing", function()
    local alone = run(77, 200)
    local w = steer.world { seed = 5 }
    for _ = 1, 30 do w:spawn { pos = { w:random() * 800, w:random() * 600 }, behaviors = { { "wander" } } } end
    for _ = 1, 50 do w:step() end
    local again = run(77, 200)
    assert.are.equal(alone, again)
  end)
end)
