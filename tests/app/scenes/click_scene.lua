-- click_scene.lua — three agents that stand still at known points; every
-- click the scene hears spawns an agent tagged by its button, so a test can
-- tell which clicks reached the scene from the agent count. Draws a label
-- under each agent (brain-less agents: scene.draw).

local scene = { config = { width = 800, height = 600, seed = 7, title = "clicks" } }

function scene.load(world)
    for _, p in ipairs({ { 400, 300 }, { 600, 450 }, { 200, 450 } }) do
        world:spawn{ pos = p, tag = "still", max_speed = 0 }
    end
end

function scene.mousepressed(world, x, y, button)
    world:spawn{ pos = { x, y }, tag = "button" .. button, max_speed = 0 }
    print(("heard click %d at %.0f,%.0f"):format(button, x, y))
end

function scene.draw(world, gfx)
    gfx.text({ 10, world.height - 22 }, ("agents: %d"):format(world:count()), { 230, 230, 230 })
end

return scene
