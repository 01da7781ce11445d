-- gfx_scene.lua — exercises the gfx table in a headless screenshot: every
-- function with each point form, colours, and bad arguments. The test counts
-- the pure magenta disc's pixels in the PNG. No agents: the frame is only
-- what draw() puts there (plus the HUD).

local steer = require "steer"

local scene = {}

scene.config = { width = 400, height = 300, seed = 1 }

local MAGENTA = { 255, 0, 255 }

function scene.load()
    assert(steer.mouse() == nil, "steer.mouse() is not nil headless")
end

local function must_fail(f, pattern)
    local ok, err = pcall(f)
    assert(not ok, "bad gfx call accepted")
    assert(tostring(err):find(pattern), "unexpected message: " .. tostring(err))
end

function scene.draw(_, gfx)
    -- A disc of radius 30 at (300, 200): about 2800 magenta pixels.
    gfx.circle(steer.vec2(300, 200), 30, MAGENTA, true)
    gfx.line({ 10, 10 }, { x = 390, y = 10 }, { 0, 255, 0 })
    gfx.circle({ x = 100, y = 200 }, 40, { r = 0, g = 200, b = 255 })
    gfx.arrow({ 50, 100 }, steer.vec2(120, 0), { 255, 200, 0, 200 })
    gfx.text({ 120, 150 }, "gfx text\nsecond line")
    must_fail(function() gfx.line(nil, { 1, 1 }) end, "bad argument #1 to 'line'")
    must_fail(function() gfx.circle({ 0, 0 }, -1) end, "bad argument #2 to 'circle'")
    must_fail(function() gfx.text({ 0, 0 }, {}) end, "bad argument #2 to 'text'")
    must_fail(function() gfx.arrow({ 0, 0 }, { 0 / 0, 1 }) end, "bad argument #2 to 'arrow'")
    print("GFX OK")
end

return scene
