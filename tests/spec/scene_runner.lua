-- scene_runner.lua — runs a scene in stock Lua the way the app does, minus
-- the window: world from scene.config, load, then update + world:step per
-- tick, scene.draw and the brains' draw into a stub gfx that checks its
-- arguments.

local steer = require "steer"

local runner = {}

local function is_point(p)
    -- a cdata: LuaJIT's FFI vec2 (API.md, "LuaJIT's FFI backend"), taken
    -- wherever a steer.vec2 is
    if type(p) == "userdata" or type(p) == "table" or type(p) == "cdata" then
        local x = p.x or p[1]
        local y = p.y or p[2]
        return type(x) == "number" and type(y) == "number"
            and x == x and y == y and math.abs(x) < math.huge and math.abs(y) < math.huge
    end
    return false
end

local function check_color(c, fn)
    if c == nil then return end
    assert(type(c) == "table", fn .. ": colour must be a table")
    for i = 1, 3 do
        local v = c[i]
        assert(type(v) == "number" and v >= 0 and v <= 255,
            fn .. ": colour component " .. i .. " must be in 0..255")
    end
end

-- A gfx stand-in: validates every call like the app would and counts them.
function runner.gfx()
    local calls = { line = 0, circle = 0, text = 0, arrow = 0, texts = {} }
    local gfx = {}
    function gfx.line(a, b, color)
        assert(is_point(a) and is_point(b), "gfx.line: two points expected")
        check_color(color, "gfx.line")
        calls.line = calls.line + 1
    end
    function gfx.circle(c, r, color, fill)
        assert(is_point(c), "gfx.circle: centre expected")
        assert(type(r) == "number" and r >= 0 and r < math.huge, "gfx.circle: radius expected")
        check_color(color, "gfx.circle")
        assert(fill == nil or type(fill) == "boolean", "gfx.circle: fill must be a boolean")
        calls.circle = calls.circle + 1
    end
    function gfx.text(pos, s, color)
        assert(is_point(pos), "gfx.text: position expected")
        assert(type(s) == "string", "gfx.text: string expected")
        check_color(color, "gfx.text")
        calls.text = calls.text + 1
        calls.texts[#calls.texts + 1] = s
    end
    function gfx.arrow(from, v, color)
        assert(is_point(from) and is_point(v), "gfx.arrow: point and vector expected")
        check_color(color, "gfx.arrow")
        calls.arrow = calls.arrow + 1
    end
    return gfx, calls
end

-- Fresh copies of the scene and the brains it uses, so one spec cannot
-- leak module state into the next.
local function fresh(name)
    for _, m in ipairs{ name, "hunter", "prey", "fsm" } do package.loaded[m] = nil end
    return require(name)
end

-- Loads `name` (a module under scripts/) and returns scene, world.
function runner.load(name, args, seed)
    local scene = fresh(name)
    assert(type(scene) == "table" and type(scene.load) == "function",
        name .. " is not a scene (no load function)")
    local cfg = scene.config or {}
    local world = steer.world{ width = cfg.width or 800, height = cfg.height or 600,
                               edges = cfg.edges or "wrap", seed = seed or cfg.seed or 1 }
    scene.load(world, args or {})
    return scene, world
end

-- Draws one frame: the scene, then every agent's brain given in `brains`
-- (a map from tag to brain module).
function runner.draw(scene, world, gfx, brains)
    if scene.draw then scene.draw(world, gfx) end
    if brains then
        for a in world:agents() do
            local b = brains[a.tag]
            if b and b.draw then b.draw(a.self, a, gfx) end
        end
    end
end

-- A snapshot of the world with the scene's own state (scene.save), and its
-- restore (scene.restore gets what scene.save returned): what the app does
-- (API.md, "Snapshots").
function runner.snapshot(scene, world)
    return world:snapshot(scene.save and scene.save() or nil)
end

function runner.restore(scene, world, snap)
    local data = world:restore(snap)
    if scene.restore then scene.restore(data) end
end

-- Runs `ticks` ticks. opts: each(tick) after every step; draw_every (ticks)
-- with gfx and brains.
function runner.run(scene, world, ticks, opts)
    opts = opts or {}
    local dt = world.dt
    for t = 1, ticks do
        if scene.update then scene.update(world, dt) end
        world:step()
        if opts.each then opts.each(t) end
        if opts.gfx and t % (opts.draw_every or 10) == 0 then
            runner.draw(scene, world, opts.gfx, opts.brains)
        end
    end
end

local function finite(v)
    return v == v and v > -math.huge and v < math.huge
end

-- Every agent position finite and inside the world; returns ok, message.
function runner.all_inside(world, margin)
    margin = margin or 1e-6
    for a in world:agents() do
        local p, v = a.pos, a.vel
        if not (finite(p.x) and finite(p.y) and finite(v.x) and finite(v.y)) then
            return false, ("agent %d (%s) not finite: %s %s"):format(a.id, tostring(a.tag), tostring(p), tostring(v))
        end
        if p.x < -margin or p.y < -margin or p.x > world.width + margin or p.y > world.height + margin then
            return false, ("agent %d (%s) outside the world at %s"):format(a.id, tostring(a.tag), tostring(p))
        end
    end
    return true
end

-- Reads `local NAME = number` from a script's source: the tunable as the
-- user edits it.
function runner.tunable(module, name)
    local path = assert(package.searchpath(module, package.path))
    local f = assert(io.open(path))
    local src = f:read("*a")
    f:close()
    local v = src:match("\nlocal%s+" .. name .. "%s*=%s*([%d%.]+)")
    return tonumber(v), src, path
end

return runner
