-- luacheck: std +busted
-- scenes_spec.lua — every scene in scripts/ runs in stock Lua (no app) and
-- behaves as a user would expect: no error, a stable crowd, every agent
-- finite and inside the world; the hunter/prey demo hunts, tires, rests,
-- catches and flees.
--
--   LUA_CPATH='build-bind/?.so;;' LUA_PATH='tests/spec/?.lua;scripts/?.lua;;' \
--       lua5.4 /usr/bin/busted tests/spec/scenes_spec.lua

local steer = require "steer"
local runner = require "scene_runner"

local EXPECTED = { "hunt", "seek_flee_arrive", "pursuit_evade", "wander", "flocking",
                   "obstacles_walls", "path_following", "formation", "hide_interpose" }

-- Every module in scripts/ that is a scene (returns a table with load).
local function discover()
    local hunt = assert(package.searchpath("hunt", package.path), "scripts/ not on LUA_PATH")
    local dir = hunt:match("^(.*)/[^/]*$") or "."
    local names = {}
    local p = assert(io.popen('ls "' .. dir .. '"'))
    for file in p:lines() do
        local name = file:match("^(.+)%.lua$")
        if name then
            local f = assert(io.open(dir .. "/" .. file))
            local src = f:read("a")
            f:close()
            if src:find("function%s+scene%.load") then names[#names + 1] = name end
        end
    end
    p:close()
    table.sort(names)
    return names
end

local SCENES = discover()

-- The shortest offset from a to b in a wrap world.
local function offset(world, a, b)
    local dx, dy = b.x - a.x, b.y - a.y
    if dx > world.width / 2 then dx = dx - world.width elseif dx < -world.width / 2 then dx = dx + world.width end
    if dy > world.height / 2 then dy = dy - world.height elseif dy < -world.height / 2 then dy = dy + world.height end
    return steer.vec2(dx, dy)
end

describe("scripts/", function()
    it("holds one scene per behaviour family and the demo", function()
        local have = {}
        for _, n in ipairs(SCENES) do have[n] = true end
        for _, n in ipairs(EXPECTED) do
            assert.is_true(have[n] == true, "missing scene scripts/" .. n .. ".lua")
        end
    end)
end)

for _, name in ipairs(SCENES) do
    describe("scene " .. name, function()
        it("runs 300 ticks with a stable crowd, every agent finite and inside the world", function()
            local scene, world = runner.load(name)
            local n = world:count()
            assert.is_true(n > 0, "the scene spawns nobody")
            local gfx, calls = runner.gfx()
            runner.run(scene, world, 300, {
                gfx = gfx, draw_every = 15,
                brains = { hunter = require "hunter", prey = require "prey" },
                each = function(t)
                    assert.are.equal(n, world:count(), "agent count changed at tick " .. t)
                    if t % 10 == 0 then assert(runner.all_inside(world)) end
                end,
            })
            assert(runner.all_inside(world))
            assert.is_true(calls.line + calls.circle + calls.text + calls.arrow > 0,
                "draw drew nothing")
        end)

        it("takes clicks and keys, then keeps running", function()
            local scene, world = runner.load(name)
            runner.run(scene, world, 30)
            if scene.mousepressed then
                scene.mousepressed(world, world.width * 0.3, world.height * 0.6, 1)
            end
            if scene.keypressed then
                for _, k in ipairs{ "1", "2", "3", "4", "d", "f", "l", "m", "space", "tab" } do
                    scene.keypressed(world, k)
                    runner.run(scene, world, 20)
                end
            end
            local gfx = runner.gfx()
            runner.run(scene, world, 100, { gfx = gfx, draw_every = 10 })
            assert(runner.all_inside(world))
        end)

        it("is deterministic: the same seed gives the same checksum", function()
            local s1, w1 = runner.load(name)
            runner.run(s1, w1, 120)
            local s2, w2 = runner.load(name)
            runner.run(s2, w2, 120)
            assert.are.equal(w1:checksum(), w2:checksum())
        end)
    end)
end

describe("the hunter/prey demo", function()
    local MAX_STAMINA = runner.tunable("hunter", "MAX_STAMINA")
    local DANGER = runner.tunable("prey", "DANGER")

    it("keeps its tunables at the top of the brains", function()
        assert.is_number(MAX_STAMINA)
        assert.is_number(DANGER)
    end)

    it("has about 40 prey and 3 hunters, coloured by state", function()
        local _, world = runner.load("hunt")
        assert.are.equal(40, world:count("prey"))
        assert.are.equal(3, world:count("hunter"))
        for h in world:agents("hunter") do
            assert.are.equal("wander", h.self.state)
            assert.are.same({ 170, 170, 170 }, { h.color[1], h.color[2], h.color[3] })
        end
    end)

    -- One long run shared by the assertions below (60 simulated seconds).
    local stamina_ok, stamina_msg = true, nil
    local gave_up, hunters_seen_states = 0, {}
    local near_not_fleeing, near_checks = 0, 0
    local away_sum, away_n = 0, 0
    local score, prey_count, inside, inside_msg
    local bar_lines

    setup(function()
        local scene, world = runner.load("hunt")
        local prev = {}
        local gfx, calls = runner.gfx()
        runner.run(scene, world, 3600, {
            each = function(t)
                for h in world:agents("hunter") do
                    local s = h.self
                    if not (s.stamina >= 0 and s.stamina <= MAX_STAMINA) then
                        stamina_ok = false
                        stamina_msg = ("hunter %d stamina %s at tick %d"):format(h.id, tostring(s.stamina), t)
                    end
                    hunters_seen_states[s.state] = true
                    if prev[h.id] == "pursue" and (s.state == "rest" or s.state == "wander") then
                        gave_up = gave_up + 1
                    end
                    prev[h.id] = s.state
                end
                if t % 5 == 0 then
                    for p in world:agents("prey") do
                        if not p.self.caught then
                            local h, d = world:nearest(p, DANGER * 0.8, "hunter")
                            if h then
                                near_checks = near_checks + 1
                                if p.self.state ~= "evade" then
                                    near_not_fleeing = near_not_fleeing + 1
                                end
                                -- fleeing means moving away: velocity against the hunter's offset
                                local v = p.vel
                                if v:len() > 1 and d > 1 then
                                    local away = offset(world, h.pos, p.pos)
                                    away_sum = away_sum + v:normalized():dot(away:normalized())
                                    away_n = away_n + 1
                                end
                            end
                        end
                    end
                end
            end,
        })
        score = scene.score(world)
        prey_count = world:count("prey")
        inside, inside_msg = runner.all_inside(world)
        runner.draw(scene, world, gfx, { hunter = require "hunter", prey = require "prey" })
        bar_lines = calls.line
    end)

    it("keeps every hunter's stamina within [0, MAX_STAMINA]", function()
        assert.is_true(stamina_ok, stamina_msg)
    end)

    it("has hunters that give up a chase (pursue -> rest or wander)", function()
        assert.is_true(hunters_seen_states.pursue == true, "no hunter ever pursued")
        assert.is_true(hunters_seen_states.rest == true, "no hunter ever ran out of stamina")
        assert.is_true(gave_up >= 1)
    end)

    it("has prey that flee when a hunter is near", function()
        assert.is_true(near_checks > 20, "hunters never came near prey")
        assert.is_true(near_not_fleeing == 0,
            near_not_fleeing .. " of " .. near_checks .. " prey near a hunter were not evading")
        assert.is_true(away_n > 0 and away_sum / away_n > 0.3,
            "prey near a hunter do not move away from it (mean cos " ..
            tostring(away_n > 0 and away_sum / away_n) .. ")")
    end)

    it("catches prey, respawns them and keeps the score", function()
        assert.is_true(score > 0, "no prey was caught in 60 s")
        assert.are.equal(40, prey_count)
        assert.is_true(inside, inside_msg)
    end)

    it("draws a stamina bar over each hunter", function()
        assert.is_true(bar_lines >= 3 * 3, "too few lines for three stamina bars")
    end)

    it("keeps stamina and state across a reload that lowers MAX_STAMINA", function()
        local scene, world = runner.load("hunt")
        runner.run(scene, world, 600)
        local _, src, path = runner.tunable("hunter", "MAX_STAMINA")
        local edited = src:gsub("\nlocal%s+MAX_STAMINA%s*=%s*[%d%.]+", "\nlocal MAX_STAMINA = 50", 1)
        local reloaded = assert(load(edited, "@" .. path))()
        for h in world:agents("hunter") do
            local before, state = h.self.stamina, h.self.state
            reloaded.reload(h.self, h)
            assert.are.equal(math.min(before, 50), h.self.stamina)
            assert.are.equal(state, h.self.state)
        end
    end)
end)
