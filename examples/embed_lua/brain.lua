-- brain.lua — the script embed_lua runs: a world of wanderers and one
-- chaser whose brain picks the nearest of them every step.
local steer = require "steer"

local world = steer.world { width = 800, height = 600, seed = 7 }

local chaser = {}
function chaser.update(self, agent)
  local target = agent.world:nearest(agent.pos, 400, "runner")
  if target then
    agent:pursue(target)
    self.chases = (self.chases or 0) + 1
  else
    agent:wander()
  end
end

for i = 1, 20 do
  world:spawn { pos = { 40 * i, 300 + 100 * math.sin(i) }, tag = "runner", max_speed = 80,
                behaviors = { { "wander" } } }
end
world:spawn { pos = { 400, 300 }, tag = "chaser", brain = chaser, max_speed = 140 }
return world
