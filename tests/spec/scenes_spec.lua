-- luacheck: std +busted
-- scenes_spec.lua — every scene in scripts/ runs in stock Lua (no app) and
-- behaves as a user would expect: no error, a stable crowd, every agent
-- finite and inside the world; the hunter/prey demo hunts, tires, rests,
-- catches and flees.
--
--   LUA_CPATH='build-bind/?.so;;' LUA_PATH='scripts/?.lua;;' \
--       lua5.4 /usr/bin/busted tests/spec/scenes_spec.lua

-- scene_runner.lua sits beside this file: find it whatever LUA_PATH says
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = here .. "?.lua;" .. package.path

local steer = require "steer"
local runner = require "scene_runner"

local EXPECTED = { "hunt", "maze", "seek_flee_arrive", "pursuit_evade", "wander", "flocking",
                   "obstacles_walls", "path_following", "formation", "hide_interpose", "queue", "stealth" }

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
            local src = f:read("*a")
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
        local reloaded = assert((loadstring or load)(edited, "@" .. path))() -- luacheck: ignore 113
        for h in world:agents("hunter") do
            local before, state = h.self.stamina, h.self.state
            reloaded.reload(h.self, h)
            assert.are.equal(math.min(before, 50), h.self.stamina)
            assert.are.equal(state, h.self.state)
        end
    end)
end)

-- Distance from point p to segment a-b (all {x, y} or vec2).
local function seg_dist(p, a, b)
    local ax, ay = a.x or a[1], a.y or a[2]
    local bx, by = b.x or b[1], b.y or b[2]
    local px, py = p.x or p[1], p.y or p[2]
    local dx, dy = bx - ax, by - ay
    local l2 = dx * dx + dy * dy
    local t = l2 > 0 and math.max(0, math.min(1, ((px - ax) * dx + (py - ay) * dy) / l2)) or 0
    local cx, cy = ax + t * dx - px, ay + t * dy - py
    return math.sqrt(cx * cx + cy * cy)
end

local function first(world, tag)
    local iter, state, ctl = world:agents(tag)
    return iter(state, ctl)
end

describe("seek_flee_arrive", function()
    for _, decel in ipairs{ "linear", "slow", "normal", "fast" } do
        it("arrive (" .. decel .. ") comes to rest on the clicked target without overshooting", function()
            local scene, world = runner.load("seek_flee_arrive", { decel })
            scene.mousepressed(world, 620, 300, 1)
            local v = first(world, "vehicle")
            local settled, max_x = nil, -math.huge
            runner.run(scene, world, 900, { each = function(t)
                max_x = math.max(max_x, v.pos.x)
                if not settled and v.pos:dist(steer.vec2(620, 300)) < 2 and v.speed < 2 then settled = t end
            end })
            assert.is_truthy(settled, "never settled on the target")
            assert.is_true(max_x <= 622, "overshot the target to x = " .. max_x)
        end)
    end

    it("the slower the deceleration, the later it gets there", function()
        local when = {}
        for _, decel in ipairs{ "fast", "normal", "slow" } do
            local scene, world = runner.load("seek_flee_arrive", { decel })
            scene.mousepressed(world, 620, 300, 1)
            local v = first(world, "vehicle")
            runner.run(scene, world, 900, { each = function(t)
                if not when[decel] and v.pos:dist(steer.vec2(620, 300)) < 1 then when[decel] = t end
            end })
        end
        assert.is_true(when.fast < when.normal and when.normal < when.slow,
            ("fast %s, normal %s, slow %s ticks"):format(when.fast, when.normal, when.slow))
    end)

    it("flee (key 2) keeps out of the panic radius", function()
        local scene, world = runner.load("seek_flee_arrive")
        scene.keypressed(world, "2")
        local v = first(world, "vehicle")
        scene.mousepressed(world, 250, 300, 1)   -- 130 from the vehicle
        runner.run(scene, world, 300)
        local d = v.pos:dist(steer.vec2(250, 300))
        assert.is_true(d > 170 and d < 260, "ended " .. d .. " from the target")
        assert.is_true(v.speed < 5, "still running")
    end)
end)

describe("pursuit_evade", function()
    it("pursuit wins more races than seek", function()
        local scene, world = runner.load("pursuit_evade")
        runner.run(scene, world, 7200)
        local p, s = first(world, "pursuer").self.catches, first(world, "seeker").self.catches
        assert.is_true(p + s >= 10, "too few races finished")
        assert.is_true(p > s, ("pursue %d, seek %d"):format(p, s))
    end)
end)

describe("wander", function()
    it("keeps every wanderer moving, and keys 1-3 change the circle", function()
        local scene, world = runner.load("wander")
        local slow = 0
        runner.run(scene, world, 600, { each = function()
            for a in world:agents() do if a.speed < 0.3 * a.max_speed then slow = slow + 1 end end
        end })
        assert.is_true(slow < 600 * world:count() * 0.05, slow .. " slow agent-ticks")
        scene.keypressed(world, "3")
        for a in world:agents() do assert.is_true(a.wander_jitter > 240) end
        scene.keypressed(world, "1")
        for a in world:agents() do assert.is_true(a.wander_jitter < 240) end
    end)
end)

describe("flocking", function()
    it("elects a few leaders and switches the view cone by key", function()
        local scene, world = runner.load("flocking")
        runner.run(scene, world, 300)
        local leaders, units = 0, 0
        for _, tag in ipairs{ "unit", "interceptor" } do
            for a in world:agents(tag) do
                units = units + 1
                if a.self.leader then leaders = leaders + 1 end
            end
        end
        assert.is_true(leaders >= 1 and leaders < units / 2, leaders .. " leaders of " .. units)
        for key, deg in pairs{ ["1"] = 270, ["2"] = 180, ["3"] = 45 } do
            scene.keypressed(world, key)
            for a in world:agents("unit") do
                local flock = a.behaviors[1]
                assert.are.equal("flock", flock[1])
                assert.is_true(math.abs(math.deg(flock.fov) - deg) < 1e-6)
            end
        end
        scene.keypressed(world, "f")   -- flocking off: everybody chases
        for a in world:agents("interceptor") do assert.are.equal("intercept", a.behaviors[2][1]) end
        for a in world:agents("unit") do assert.are.equal("pursue", a.behaviors[2][1]) end
    end)
end)

describe("obstacles_walls", function()
    it("nobody enters an obstacle or leaves the walled area", function()
        local scene, world = runner.load("obstacles_walls")
        local inset = scene.inset
        runner.run(scene, world, 1200, { each = function(t)
            for a in world:agents() do
                local p = a.pos
                for _, o in ipairs(scene.obstacles) do
                    assert.is_true(p:dist(steer.vec2(o[1], o[2])) >= o[3],
                        ("agent %d inside obstacle at tick %d"):format(a.id, t))
                end
                assert.is_true(p.x > inset and p.y > inset and p.x < world.width - inset
                    and p.y < world.height - inset, ("agent %d through a wall at tick %d"):format(a.id, t))
            end
        end })
    end)
end)

describe("path_following", function()
    it("keeps followers on the path, loop or open, in both modes", function()
      for _, mode in ipairs{ "predict", "waypoints" } do
        local scene, world = runner.load("path_following")
        if mode == "waypoints" then scene.keypressed(world, "m") end
        local function near_path()
            local pts, loop = scene.route(world)
            for a in world:agents() do
                local best = math.huge
                local n = loop and #pts or #pts - 1
                for i = 1, n do
                    best = math.min(best, seg_dist(a.pos, pts[i], pts[i % #pts + 1]))
                end
                assert.is_true(best < 40, ("agent %d is %.0f from the path"):format(a.id, best))
            end
        end
        runner.run(scene, world, 600, { each = function(t) if t > 60 then near_path() end end })
        scene.keypressed(world, "l")
        runner.run(scene, world, 1800)
        local pts = scene.route(world)
        for a in world:agents() do   -- the open path ends with arrive
            assert.is_true(a.pos:dist(steer.vec2(pts[#pts][1], pts[#pts][2])) < 60)
            assert.is_true(a.speed < 5)
        end
      end
    end)
end)

describe("formation", function()
    it("followers settle into their slots, for every shape", function()
        for _, key in ipairs{ "1", "2", "3", "4", "5" } do
            local scene, world = runner.load("formation")
            scene.keypressed(world, key)
            local worst = math.huge
            runner.run(scene, world, 900, { each = function(t)
                if t % 30 == 0 then
                    local slots, i, w = scene.slots(world), 0, 0
                    for a in world:agents("follower") do
                        i = i + 1
                        w = math.max(w, a.pos:dist(slots[i]))
                    end
                    worst = math.min(worst, w)
                end
            end })
            assert.is_true(worst < 12, "shape " .. key .. ": a follower stays " .. worst .. " from its slot")
        end
    end)
end)

describe("formation membership", function()
    it("takes members in and out, and every follower holds its own slot", function()
        local scene, world = runner.load("formation")
        scene.keypressed(world, "+")
        scene.keypressed(world, "+")
        runner.run(scene, world, 60)
        scene.keypressed(world, "-")
        runner.run(scene, world, 900)
        local slots, seen = scene.slots(world), {}
        assert.are.equal(world:count("follower"), #slots)
        assert.are.equal(9, #slots)
        for i, p in ipairs(slots) do
            local key = ("%.3f,%.3f"):format(p.x, p.y)
            assert.is_nil(seen[key], "two followers share slot " .. i)
            seen[key] = true
        end
    end)

    it("in leader-following mode keeps followers out of the leader's way", function()
        local scene, world = runner.load("formation")
        scene.keypressed(world, "6")
        local ahead, samples = 0, 0
        runner.run(scene, world, 1200, { each = function(t)
            if t < 300 or t % 10 ~= 0 then return end
            local l = first(world, "leader")
            if l.speed < 20 then return end
            for a in world:agents("follower") do
                local rel = a.pos - l.pos
                local along, across = rel:dot(l.heading), math.abs(rel:dot(l.side))
                if along > 0 and along < 40 and across < 12 then ahead = ahead + 1 end
                samples = samples + 1
            end
        end })
        assert.is_true(samples > 0)
        assert.is_true(ahead < 0.02 * samples, ("in the leader's way %d of %d"):format(ahead, samples))
    end)
end)

describe("queue", function()
    local function run_door(queue)
        local scene, world = runner.load("queue")
        if not queue then scene.keypressed(world, "q") end
        local through, overlaps, was_left, was_at = 0, 0, {}, {}
        local door = scene.door
        runner.run(scene, world, 1800, { each = function()
            local list = {}
            for a in world:agents("walker") do
                list[#list + 1] = a
                local left = a.pos.x < door.x
                if was_left[a] and not left and a.pos:dist(steer.vec2(door.x, 300)) < 60 then
                    through = through + 1
                end
                -- never through the wall outside the door (a walker at the exit
                -- is put back at the start: that jump is no crossing)
                local walked = was_at[a] and a.pos:dist(was_at[a]) < 20
                was_at[a] = a.pos
                if walked and was_left[a] ~= left then
                    assert.is_true(a.pos.y > door.lo - 4 and a.pos.y < door.hi + 4,
                        ("walker %d crossed the wall at y=%.0f"):format(a.id, a.pos.y))
                end
                was_left[a] = left
            end
            for i = 1, #list do
                for j = i + 1, #list do
                    if list[i].pos:dist(list[j].pos) < 10 then overlaps = overlaps + 1 end
                end
            end
        end })
        return through, overlaps
    end

    it("files the crowd through the door, with less pushing than without queueing", function()
        local through, overlaps = run_door(true)
        local through_off, overlaps_off = run_door(false)
        assert.is_true(through >= 20, "only " .. through .. " walkers through the door in 30 s")
        assert.is_true(overlaps < overlaps_off,
            ("overlaps with queue %d, without %d (through %d / %d)"):format(overlaps, overlaps_off,
                through, through_off))
    end)
end)

describe("hide_interpose", function()
    it("hiders keep an obstacle between them and the hunter; the guard stays between", function()
        local scene, world = runner.load("hide_interpose")
        local hidden, seen, between, samples = 0, 0, 0, 0
        runner.run(scene, world, 1800, { each = function(t)
            if t < 300 or t % 10 ~= 0 then return end
            local h, vip, guard = first(world, "hunter"), first(world, "vip"), first(world, "guard")
            for a in world:agents("hider") do
                local blocked = false
                for _, o in ipairs(scene.obstacles) do
                    if seg_dist({ o[1], o[2] }, h.pos, a.pos) < o[3] then blocked = true end
                end
                if blocked then hidden = hidden + 1 else seen = seen + 1 end
            end
            samples = samples + 1
            if seg_dist(guard.pos, h.pos, vip.pos) < 30 then between = between + 1 end
        end })
        assert.is_true(hidden > 2 * seen, ("hidden %d, in sight %d"):format(hidden, seen))
        assert.is_true(between > 0.7 * samples, ("between %d of %d"):format(between, samples))
    end)
end)

describe("maze.lua", function()
    -- The crowd on the flow field reaches the exit (and comes back in on the
    -- left): over 40 s most evacuees pass it, and nobody ends inside a wall.
    it("evacuates its crowd through the exit and keeps everyone out of the walls", function()
        local scene, world = runner.load("maze")
        local crossed, seen = 0, {}
        runner.run(scene, world, 60 * 40, { each = function()
            for a in world:agents("crowd") do
                if a.pos.x > 930 and not seen[a] then seen[a] = true crossed = crossed + 1 end
            end
        end })
        assert.is_true(crossed >= 60, "only " .. crossed .. " of 120 reached the exit")
        for a in world:agents() do
            for _, r in ipairs(scene.walls) do
                local p = a.pos
                assert.is_false(p.x > r[1] + 1 and p.x < r[3] - 1 and p.y > r[2] + 1 and p.y < r[4] - 1,
                    "agent inside a wall at " .. tostring(p))
            end
        end
    end)
end)

describe("tiles.lua", function()
    -- Three agent sizes on one tile navgrid: each size makes trips, nobody
    -- stands inside a wall tile, and every path keeps its agent's radius
    -- from the wall tiles (beyond its first leg) — checked on the map itself.
    it("moves three sizes of agent on one navgrid, out of the walls", function()
        local scene, world = runner.load("tiles")
        local T = scene.tile
        local function wall(x, y)
            local row = scene.map[y + 1]
            return not row or x < 0 or x >= #row or row:sub(x + 1, x + 1) == "#"
        end
        local function room(p)
            local best, cx, cy = math.huge, math.floor(p.x / T), math.floor(p.y / T)
            for y = cy - 3, cy + 3 do
                for x = cx - 3, cx + 3 do
                    if wall(x, y) then
                        local dx = math.max(x * T - p.x, 0, p.x - (x + 1) * T)
                        local dy = math.max(y * T - p.y, 0, p.y - (y + 1) * T)
                        best = math.min(best, math.sqrt(dx * dx + dy * dy))
                    end
                end
            end
            return best
        end
        local worst = math.huge
        local track = {} -- each agent's position every second
        runner.run(scene, world, 60 * 30, { each = function()
            if world.tick % 60 == 0 then
                for a in world:agents() do
                    track[a] = track[a] or {}
                    table.insert(track[a], a.pos)
                end
            end
            for a in world:agents() do
                local p = a.self.path
                if p and world.tick % 30 == 0 then
                    local pts, leap = p:points(), {}
                    for _, l in ipairs(p:links()) do leap[l.index + 1] = true end -- the jump: over the wall
                    for i = 3, #pts do
                        for k = 0, leap[i] and -1 or 8 do
                            local q = pts[i - 1] + (pts[i] - pts[i - 1]) * (k / 8)
                            worst = math.min(worst, room(q) - a.radius)
                        end
                    end
                end
            end
        end })
        assert.is_true(worst > -1e-6, "a path comes " .. -worst .. " inside its agent's radius")
        local trips, jumps = {}, 0
        for a in world:agents() do
            jumps = jumps + (a.self.jumps or 0)
            assert.is_false(wall(math.floor(a.pos.x / T), math.floor(a.pos.y / T)),
                "agent in a wall at " .. tostring(a.pos))
            trips[a.tag] = (trips[a.tag] or 0) + (a.self.trips or 0)
        end
        for _, s in ipairs(scene.sizes) do
            assert.is_true((trips[s.tag] or 0) > s.count, s.tag .. " made " .. tostring(trips[s.tag]) .. " trips")
        end
        assert.is_true(jumps > 0, "nobody took the jump")
        -- nobody stays put: within any 15 s, every agent gets 15 units from
        -- where it was (a walker whose goal had no room for it once stood
        -- still for good, replanning to a path that ended short of it)
        for a, ps in pairs(track) do
            for k = 1, #ps - 15 do
                local moved = 0
                for j = k, k + 15 do moved = math.max(moved, ps[j]:dist(ps[k])) end
                assert.is_true(moved >= 15, a.tag .. " " .. a.id .. " stood at " .. tostring(ps[k]) .. " for 15 s")
            end
        end
        -- shutting a door changes the plans of everyone on the same grid
        local walls = #world:obstacles()
        scene.set_door(world, 1, false)
        assert.is_true(world.user.nav:blocked(6, 14))
        assert.equals(walls + 1, #world:obstacles()) -- the door's wall, from add_tiles{ nav = ... }
        scene.set_door(world, 1, true)
        assert.equals(walls, #world:obstacles())
    end)
end)

describe("stealth.lua", function()
    -- One run shared by the assertions: 60 simulated seconds with the
    -- scripted player, each guard's state changes and messages logged.
    local scene, world = runner.load("stealth")
    local seen_states, alerted, caught_ticks = {}, 0, {}
    local visible_when_chasing = true
    local guards = {}
    for g in world:agents("guard") do guards[#guards + 1] = g end
    local function player()
        local iter, state, ctl = world:agents("player")
        return iter(state, ctl)
    end
    -- No clear ray to the player's centre nor to either side of it (a
    -- little wider than its disc: it moved since the guard looked).
    local function hidden_by_wall(from, p)
        local d = p.pos - from
        local side = d:perp():normalized() * (p.radius + 2)
        return world:raycast(from, p.pos) ~= nil and world:raycast(from, p.pos + side) ~= nil
            and world:raycast(from, p.pos - side) ~= nil
    end
    runner.run(scene, world, 3600, { each = function()
        for _, g in ipairs(guards) do
            local s = g.self.state
            seen_states[s] = (seen_states[s] or 0) + 1
            if s == "search" and g.self.previous_state == "patrol" then alerted = alerted + 1 end
            -- a guard that has just started chasing saw the player: no wall between
            if s == "chase" and g.self.state_time == 0 and hidden_by_wall(g.pos, player()) then
                visible_when_chasing = false
            end
        end
        if world.user.caught > #caught_ticks then caught_ticks[#caught_ticks + 1] = world.tick end
    end })

    it("has its guards patrol, chase, search and return", function()
        for _, s in ipairs { "patrol", "chase", "search", "return" } do
            assert.is_true((seen_states[s] or 0) > 0, "no guard ever in state " .. s)
        end
    end)

    it("has a guard start a chase only when no wall hides the player", function()
        assert.is_true(visible_when_chasing)
    end)

    it("has guards alerted by a message search without seeing the player themselves", function()
        assert.is_true(alerted > 0)
    end)

    it("catches the player now and then, not all the time", function()
        assert.is_true(#caught_ticks >= 1, "never caught")
        assert.is_true(#caught_ticks < 20, "caught " .. #caught_ticks .. " times in a minute")
    end)

    it("remembers where the player was when the guards lose sight", function()
        local any = false
        for _, g in ipairs(guards) do
            if g.self.last then any = true end
        end
        assert.is_true(any)
    end)

    it("thinks every 3 ticks and gives the same checksum on 1 and 2 threads", function()
        for _, g in ipairs(guards) do assert.are.equal(3, g.think_every) end
        local function run(threads)
            local real = steer.world
            steer.world = function(def) def.threads = threads; return real(def) end -- luacheck: ignore
            local ok, s, w = pcall(runner.load, "stealth")
            steer.world = real -- luacheck: ignore
            assert(ok, s)
            -- a build without OpenMP (test-portable's Clang) runs one thread when two are asked
            assert.is_true(w.threads >= 1 and w.threads <= threads)
            runner.run(s, w, 900)
            return w:checksum()
        end
        assert.are.equal(run(1), run(2))
    end)
end)
