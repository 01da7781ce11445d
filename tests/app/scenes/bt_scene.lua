-- bt_scene.lua — five agents on a steer.bt tree (bt_brain.lua), for
-- tests/app/test_bt_reload.sh: every 10 ticks it prints what the running
-- action said and the running node's path, so the test can see a reload
-- keep the node running with its new code, and a renamed node start afresh.
local scene = { config = { width = 400, height = 300, seed = 2 } }
local ticks = 0

function scene.load(world)
    for i = 1, 5 do world:spawn { pos = { 60 * i, 150 }, brain = "bt_brain" } end
end

function scene.update(world)
    ticks = ticks + 1
    if ticks % 10 ~= 0 then return end
    local said, active = {}, {}
    for a in world:agents() do
        said[#said + 1] = tostring(a.self.said)
        active[#active + 1] = tostring(a.self.bt and a.self.bt.active)
    end
    print(("bt tick=%d said=%s active=%s"):format(ticks, table.concat(said, ","), active[1]))
end

return scene
