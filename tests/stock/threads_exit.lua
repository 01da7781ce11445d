-- threads_exit.lua — stock lua5.4 must exit cleanly after stepping a world
-- with two threads. lua_close unloads C modules; if steer.so (and with it
-- libgomp) went away while OpenMP's idle workers were still spinning, the
-- process crashed at exit (tests/stock/threads_exit.sh runs this a few
-- times and checks the exit status).
local steer = require "steer"
local brain = {}
function brain.update(_, agent)
    local other = agent.world:nearest(agent, 100)
    if other then agent:evade(other) else agent:wander() end
end
local w = steer.world{ width = 4000, height = 4000, edges = "wrap", seed = 3, threads = 2 }
for _ = 1, 10000 do
    w:spawn{ pos = { w:random() * 4000, w:random() * 4000 }, brain = brain }
end
for _ = 1, 20 do w:step() end
assert(w:count() == 10000)
print("stepped " .. w.tick .. " ticks with " .. w.threads .. " threads")
