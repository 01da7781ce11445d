-- soak.lua — the hunter/prey demo for a long headless run with a reload of
-- the hunter's brain every 1000 ticks, alternating a good edit (a new
-- MAX_STAMINA) and a broken one (a syntax error), and a memory report every
-- 10000 ticks. It writes its own brain file, so it runs trusted, from a
-- scratch folder that holds a copy of scripts/hunter.lua:
--
--   steer --headless --trust --ticks 100000 DIR/soak.lua -- DIR

local steer = require "steer"
local hunt = require "hunt"

local scene = { config = hunt.config }

local RELOAD_EVERY = 1000
local REPORT_EVERY = 10000

local dir, original
local ticks, reloads, failures = 0, 0, 0

local function read(path)
    local f = assert(io.open(path, "r"))
    local text = f:read("a")
    f:close()
    return text
end

local function write(path, text)
    local f = assert(io.open(path, "w"))
    f:write(text)
    f:close()
end

local function rss_kb()
    local f = io.open("/proc/self/status", "r")
    if not f then return -1 end
    local text = f:read("a")
    f:close()
    return tonumber(text:match("VmRSS:%s*(%d+)")) or -1
end

function scene.load(world, args)
    dir = assert(args[1], "usage: soak.lua -- DIR")
    original = read(dir .. "/hunter.lua")
    ticks, reloads, failures = 0, 0, 0
    hunt.load(world, args)
end

function scene.update(world, dt)
    if hunt.update then hunt.update(world, dt) end
    ticks = ticks + 1
    if ticks % RELOAD_EVERY == 0 then
        local k = ticks // RELOAD_EVERY
        local text
        if k % 2 == 1 then
            text = original:gsub("local MAX_STAMINA%s*=%s*%d+", "local MAX_STAMINA = " .. (90 + k % 20))
        else
            text = original .. "\nlocal broken = = 1\n"
        end
        write(dir .. "/hunter.lua", text)
        local ok = steer.reload("hunter")
        reloads = reloads + 1
        if not ok then failures = failures + 1 end
    end
    if ticks % REPORT_EVERY == 0 then
        collectgarbage()
        print(string.format("soak tick=%d rss_kb=%d lua_kb=%.0f reloads=%d failed=%d agents=%d",
                            ticks, rss_kb(), collectgarbage("count"), reloads, failures, world:count()))
    end
end

scene.draw = hunt.draw

return scene
