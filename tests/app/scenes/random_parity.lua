-- random_parity.lua — a scene whose brains and update call math.random in
-- every form (as lume.uuid, shuffles and jitter do), interleaved with the
-- world's own draws (wander). tests/app/test_random_parity.sh runs it in the
-- app and in stock lua5.4 (tools/run_scene.lua, steer.install_random) and
-- expects the same checksum.

local scene = { config = { width = 600, height = 400, seed = 21 } }

local jitter = {}
function jitter.spawn(self)
    self.bias = math.random() - 0.5
end
function jitter.update(self, agent)
    if math.random(10) == 1 then
        agent:seek({ math.random(0, 600), math.random(0, 400) })
    else
        agent:wander()
    end
    self.id = math.random(0) -- 64 random bits
    self.big = math.random(-2 ^ 40 // 1, 2 ^ 40 // 1)
    agent.max_speed = 60 + 40 * math.random() + self.bias
end

function scene.load(world)
    for _ = 1, 30 do
        world:spawn { pos = { math.random() * 600, math.random(400) }, brain = jitter }
    end
end

function scene.update(world)
    if world.tick % 50 == 0 then
        world:spawn { pos = { math.random(600), math.random(400) }, brain = jitter }
    end
end

return scene
