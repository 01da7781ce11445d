-- tiles.lua — a tile map, as 2D games keep their levels, and agents of three
-- sizes planning on one navgrid.
--
-- The level is rows of characters ('#' wall, '.' floor), 60 x 40 tiles of 16.
-- world:navgrid{ tiles = ... } plans on it with exact tile semantics, and
-- world:add_tiles{ ..., nav = nav } puts the same walls in the world as
-- merged rectangles, so contacts keep everyone out of them, and they follow
-- nav:set_tile. Small green runners
-- (radius 3) fit the one-tile passages, blue walkers (radius 9) the
-- three-tile corridors, and big orange carts (radius 20) only the halls: each
-- asks nav:path(from, to, { radius = a.radius }) of the same grid and walks
-- to a random spot it can reach, then picks another.
--
-- A jump (nav:link, both ways) hops the south wall of the top middle room
-- and the hall below: paths that save by it take it, and the brain's traverse_link makes the
-- leap (the wall is in the world, so nobody could walk across).
--
-- F12 cycles the overlay: paths + doors, paths, off. Click: open or shut the
-- door nearest the click (nav:set_tile; the walls in the world follow too).

local steer = require "steer"
local vec2 = steer.vec2

local scene = {}

scene.config = { width = 960, height = 640, edges = "bounce", seed = 29, contacts = true,
                 title = "tiles: one navgrid, three agent sizes (F12: overlay, click: doors)" }

local TILE = 16
local MAP = {
    "############################################################",
    "#..........#.........................#.....................#",
    "#..........#.........................#.....................#",
    "#..........#.........................#.....................#",
    "#..........#......#########..........#.....................#",
    "#..........#......#.......#..........#.........######......#",
    "#..........#......#.......#..........#.........#....#......#",
    "#.................#.......#....................#....#......#",
    "#.................#.......#....................#....#......#",
    "#.................#..................................#.....#",
    "#..........#......#.......#..........#.........#....#......#",
    "#..........#......#########..........#.........######......#",
    "#..........#.........................#.....................#",
    "#..........#.........................#.....................#",
    "######.#####################.....#########.....#############",
    "#..........#...............#.....#.......#.....#...........#",
    "#..........#...............#.....#.......#.....#...........#",
    "#..........#...............#.....#.......#.....#...........#",
    "#..........#...............#.....#.......#.....#...........#",
    "#..........................................................#",
    "#..........................................................#",
    "#..........#...............#.....#.......#.....#...........#",
    "#..........#...............#.....#.......#.....#...........#",
    "#..........#...............#.....#.......#.....#...........#",
    "####.#######...............#.....#.......#.....####...######",
    "#..........#...............###.#########.#.....#...........#",
    "#..........#...............#...............#...#...........#",
    "#..........#...............#...............#...#...........#",
    "#..........#...............#...............#...#...........#",
    "#..........#####.###########...............#...#...........#",
    "#..........................................#...............#",
    "#..........................................#...............#",
    "#..........................................#...............#",
    "#..........#...............................#...#...........#",
    "#..........#...............#...............#...#...........#",
    "#..........#...............#...............#...#...........#",
    "#..........#...............#...............#...#...........#",
    "#..........#...............#...............#...#...........#",
    "#..........#...............#...............#...#...........#",
    "############################################################",
}
-- Doors a click opens and shuts: one-tile gaps in the walls above.
local DOORS = { { 6, 14 }, { 4, 24 }, { 16, 29 }, { 31, 25 } }

local SIZES = {
    { tag = "runner", radius = 3, count = 14, speed = 90, color = { 110, 220, 120 } },
    { tag = "walker", radius = 9, count = 8, speed = 70, color = { 90, 150, 230 } },
    { tag = "cart", radius = 20, count = 4, speed = 50, color = { 240, 160, 60 } },
}

-- The jump: from floor tile (20, 12) over the wall in row 14 down to (20, 16).
local JUMP = { from = { 20, 12 }, to = { 20, 16 } }

scene.map, scene.tile, scene.sizes, scene.jump = MAP, TILE, SIZES, JUMP -- for tests

local function center(x, y) return vec2((x + 0.5) * TILE, (y + 0.5) * TILE) end

-- A random floor tile's centre where an agent of radius r has room to stand.
local function spot(world, r)
    local nav = world.user.nav
    for _ = 1, 500 do
        local p = center(math.floor(world:random() * 60), math.floor(world:random() * 40))
        -- Room to stand: a path to p for this radius ends at p itself (one
        -- to a spot too near a wall ends short of it, and would never arrive).
        local path = not nav:blocked(p) and nav:path(p, p, { radius = r })
        if path and path[#path]:dist(p) < 1 then return p end
    end
    return center(30, 20)
end

local walker = {}

function walker.update(self, a, dt)
    local nav = a.world.user.nav
    self.replan = (self.replan or 0) - dt
    if not self.path or self.replan <= 0 or a.pos:dist(self.goal) < a.radius + 6 then
        if not self.goal or a.pos:dist(self.goal) < a.radius + 6 then
            self.goal = spot(a.world, a.radius)
            self.trips = (self.trips or 0) + 1
        end
        self.path = nav:path(a.pos, self.goal, { radius = a.radius })
        self.replan = 2 -- doors open and shut: look again now and then
        if not self.path then self.goal = nil end
    end
    if self.path then
        a:follow_path(self.path)
    else
        a:apply(a.vel * -2)
    end
end

-- Called after the step in which the agent reached the jump's take-off:
-- the leap lands it on the far side, and its path carries on from there.
function walker.traverse_link(self, a, link)
    a.pos = link.to
    self.jumps = (self.jumps or 0) + 1
end

local VIEWS = { all = 1, paths = 2, off = 3 }

local function set_door(world, i, open)
    local d = DOORS[i]
    world.user.nav:set_tile(d[1], d[2], not open) -- the walls in the world follow
    world.user.open[i] = open
end

function scene.load(world, args)
    world.user.nav = world:navgrid { tiles = MAP, tile = TILE }
    world.user.walls = world:add_tiles { tiles = MAP, tile = TILE, nav = world.user.nav }
    world.user.jump = world.user.nav:link(center(JUMP.from[1], JUMP.from[2]), center(JUMP.to[1], JUMP.to[2]),
                                          { kind = "jump", both = true })
    world.user.open = {}
    for i in ipairs(DOORS) do world.user.open[i] = true end
    world.user.view = 1
    for _, arg in ipairs(args or {}) do world.user.view = VIEWS[arg] or world.user.view end
    for _, s in ipairs(SIZES) do
        for _ = 1, s.count do
            world:spawn { pos = spot(world, s.radius), radius = s.radius, max_speed = s.speed,
                          max_force = s.speed * 4, tag = s.tag, color = s.color, brain = walker }
        end
    end
end

function scene.keypressed(world, key)
    if key == "f12" then world.user.view = (world.user.view % 3) + 1 end
end

function scene.mousepressed(world, x, y)
    local best, bd = nil, math.huge
    for i, d in ipairs(DOORS) do
        local dist = center(d[1], d[2]):dist(vec2(x, y))
        if dist < bd then best, bd = i, dist end
    end
    if best then set_door(world, best, not world.user.open[best]) end
end

scene.set_door = set_door -- for tests

local DOOR_COLOR = { open = { 90, 230, 120 }, shut = { 230, 80, 80 } }

function scene.draw(world, gfx)
    local u = world.user
    if u.view <= 2 then
        for a in world:agents() do
            local p = a.self.path
            if p then
                local pts, from = p:points(), a.pos
                for i = a.path_index or 1, #pts do
                    gfx.line(from, pts[i], a.color)
                    from = pts[i]
                end
            end
        end
    end
    if u.view == 1 then
        gfx.line(u.jump.from, u.jump.to, { 250, 230, 90 })
        gfx.circle(u.jump.to, 4, { 250, 230, 90 }, true)
        for i, d in ipairs(DOORS) do
            gfx.circle(center(d[1], d[2]), TILE * 0.45, u.open[i] and DOOR_COLOR.open or DOOR_COLOR.shut, true)
        end
    end
    local trips, jumps = 0, 0
    for a in world:agents() do trips, jumps = trips + (a.self.trips or 0), jumps + (a.self.jumps or 0) end
    gfx.text({ 20, 612 }, ("trips %d  jumps %d   runners r3, walkers r9, carts r20 on one navgrid   "
        .. "F12 overlay, click: doors"):format(trips, jumps))
end

return scene
