-- run_scene.lua — runs a scene in stock Lua (5.4, 5.3, 5.1 or LuaJIT) the way `steer --headless`
-- does, and prints the same summary line, checksum included:
--
--   LUA_CPATH='build/?.so;;' lua5.4 tools/run_scene.lua SCENE.lua [TICKS [SEED]] [-- ARGS...]
--
-- What the app does, done here by hand: the scene's folder, then scripts/,
-- are searched by require; the world comes from scene.config (width, height,
-- edges, seed, dt, cell_size; --seed overrides the seed); math.random draws
-- from that world's stream (steer.install_random); scene.load(world, args)
-- runs once; each tick is scene.update(world, dt) then world:step().
-- Brain errors go to stderr and pause the brain, as in the app.
--
-- Limits: no gfx (scene.draw and brain.draw are not called), no sandbox, no
-- instruction budget; math.random calls made while modules load (before
-- the world exists) draw from stock Lua's generator, not the app's
-- pre-world stream, so keep them inside load and update.

local steer = require "steer"
-- Lua 5.1 and LuaJIT have no math.tointeger: an integral number is one.
local tointeger = math.tointeger or function(x)
    if type(x) == "number" and x == math.floor(x) then return x end
end

local scene_path = assert(arg[1], "usage: run_scene.lua SCENE.lua [TICKS [SEED]] [-- ARGS...]")
local ticks, seed = 600, nil
local args = {}
do
    local i, pos = 2, 0
    while arg[i] do
        if arg[i] == "--" then
            for j = i + 1, #arg do args[#args + 1] = arg[j] end
            break
        end
        pos = pos + 1
        if pos == 1 then ticks = assert(tointeger(tonumber(arg[i])), "TICKS: an integer")
        elseif pos == 2 then seed = assert(tointeger(tonumber(arg[i])), "SEED: an integer") end
        i = i + 1
    end
end

-- The scene's folder first, then scripts/ next to this tool.
local here = (debug.getinfo(1, "S").source:gsub("^@", ""):match("^(.*)/[^/]*$")) or "."
local scene_dir = scene_path:match("^(.*)/[^/]*$") or "."
package.path = ("%s/?.lua;%s/?/init.lua;%s/../scripts/?.lua;%s/../scripts/?/init.lua;"):format(
    scene_dir, scene_dir, here, here) .. package.path

local module = scene_path:match("([^/]+)%.lua$") or scene_path
local scene = require(module)
assert(type(scene) == "table", scene_path .. ": a scene must return a table")

local cfg = type(scene.config) == "table" and scene.config or {}
local world = steer.world {
    width = tonumber(cfg.width) or 800,
    height = tonumber(cfg.height) or 600,
    edges = cfg.edges == nil and "wrap" or cfg.edges,
    seed = seed or tointeger(cfg.seed) or (tonumber(cfg.seed) and math.floor(cfg.seed)) or 1,
    dt = cfg.dt,
    cell_size = cfg.cell_size,
}
steer.install_random(world)

local errors = 0
world.on_error = function(_, message)
    errors = errors + 1
    io.stderr:write("steer: runtime error: ", message, "\n")
end

if type(scene.load) == "function" then scene.load(world, args) end
local update_ok = true
for _ = 1, ticks do
    if update_ok and type(scene.update) == "function" then
        local ok, err = pcall(scene.update, world, world.dt)
        if not ok then
            update_ok = false
            errors = errors + 1
            io.stderr:write("steer: runtime error: scene.update: ", tostring(err), "\n")
        end
    end
    world:step()
end
print(("ticks=%d agents=%d checksum=%s errors=%d"):format(ticks, world:count(), world:checksum(), errors))
