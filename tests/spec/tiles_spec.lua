-- Tile navgrids: world:navgrid{ tiles = ... }, nav:path(from, to, { radius = r }),
-- nav:flow_field(goal, { radius = r }) (API.md, "Navigation", tile maps).
local steer = require "steer"
local vec2 = steer.vec2
local H = require "spec_helper"

local raises = H.raises

local TILE = 8

-- A seeded map: a frame, random single blocks (about 3%, none within 3
-- tiles of the middle wall), and two rooms joined by a 1-tile door and a
-- 4-tile gap, so agents of different sizes take different ways.
local function make_map(cols, rows, seed)
  local s = seed
  local function rnd()
    s = (s * 16807) % 2147483647 -- Park-Miller: exact in every Lua
    return s / 2147483647
  end
  local rows_t = {}
  for y = 0, rows - 1 do
    local row = {}
    for x = 0, cols - 1 do
      local wall = x == 0 or y == 0 or x == cols - 1 or y == rows - 1
      if x == 20 and not (y == 5 or (y >= 20 and y <= 23)) then wall = true end
      if math.abs(x - 20) > 3 and x > 1 and y > 1 and x < cols - 2 and y < rows - 2 and rnd() < 0.03 then
        wall = true
      end
      row[#row + 1] = wall and "#" or "."
    end
    rows_t[#rows_t + 1] = table.concat(row)
  end
  return rows_t
end

local COLS, ROWS = 40, 30
local MAP = make_map(COLS, ROWS, 29)

local function blocked(x, y)
  if x < 0 or y < 0 or x >= COLS or y >= ROWS then return true end
  return MAP[y + 1]:sub(x + 1, x + 1) == "#"
end

local function world(threads)
  return steer.world { width = COLS * TILE, height = ROWS * TILE, edges = "bounce", seed = 5, threads = threads }
end

-- Distance from point (px, py) to tile (x, y), in tiles.
local function tile_distance(px, py, x, y)
  local dx = math.max(x - px, 0, px - (x + 1))
  local dy = math.max(y - py, 0, py - (y + 1))
  return math.sqrt(dx * dx + dy * dy)
end

-- The least distance (tiles) from segment a-b (world units) to any blocked
-- tile, by walking the segment in steps of 1/64 tile and looking at the
-- tiles around each point (this file's own walk, not the planner's).
local function room_along(a, b, reach)
  local ax, ay, bx, by = a.x / TILE, a.y / TILE, b.x / TILE, b.y / TILE
  local len = math.sqrt((bx - ax) ^ 2 + (by - ay) ^ 2)
  local n = math.max(1, math.ceil(len * 64))
  local best = math.huge
  local r = math.ceil(reach) + 1
  for i = 0, n do
    local px, py = ax + (bx - ax) * i / n, ay + (by - ay) * i / n
    local cx, cy = math.floor(px), math.floor(py)
    for y = cy - r, cy + r do
      for x = cx - r, cx + r do
        if blocked(x, y) then best = math.min(best, tile_distance(px, py, x, y)) end
      end
    end
  end
  return best
end

local function center(x, y) return vec2((x + 0.5) * TILE, (y + 0.5) * TILE) end

local function length(p)
  local l = 0
  for i = 2, #p do l = l + (p[i] - p[i - 1]):len() end
  return l
end

describe("tile navgrids", function()
  it("take rows of characters or a Tiled layer, and read back", function()
    local w = world()
    local nav = w:navgrid { tiles = MAP, tile = TILE }
    assert.is_true(nav.tiled)
    assert.are.equal(COLS, nav.cols)
    assert.are.equal(ROWS, nav.rows)
    assert.are.equal(TILE, nav.cell)
    assert.are.equal(0, nav.clearance)
    local data = {}
    for y = 0, ROWS - 1 do
      for x = 0, COLS - 1 do data[#data + 1] = blocked(x, y) and 17 or 0 end
    end
    local layer = w:navgrid { tiles = { width = COLS, height = ROWS, data = data }, tile = TILE }
    for y = 0, ROWS - 1 do
      for x = 0, COLS - 1 do
        assert.are.equal(blocked(x, y), nav:blocked(x, y))
        assert.are.equal(blocked(x, y), layer:blocked(x, y))
      end
    end
    -- walkable: the free characters, a set, or a function
    local a = w:navgrid { tiles = { "a.b" }, walkable = "a." }
    local b = w:navgrid { tiles = { "a.b" }, walkable = { a = true, ["."] = true } }
    local c = w:navgrid { tiles = { "a.b" }, walkable = function(ch) return ch ~= "b" end }
    for _, n in ipairs { a, b, c } do
      assert.is_false(n:blocked(0, 0))
      assert.is_false(n:blocked(1, 0))
      assert.is_true(n:blocked(2, 0))
    end
    -- the rule is asked once a character, however many tiles have it
    local asked = {}
    local e = w:navgrid { tiles = { "a.b.a.", "bbaa.." }, walkable = function(ch)
      asked[ch] = (asked[ch] or 0) + 1
      return ch ~= "b"
    end }
    assert.are.same({ a = 1, ["."] = 1, b = 1 }, asked)
    assert.is_true(e:blocked(0, 1) and e:blocked(2, 0))
    assert.is_false(e:blocked(4, 0) or e:blocked(3, 1))
    local d = w:navgrid { tiles = { width = 3, height = 1, data = { 0, 5, 7 } }, walkable = { [0] = true, [7] = true } }
    assert.is_true(d:blocked(1, 0))
    assert.is_false(d:blocked(2, 0))
    -- without `tile`, the map fills the world
    assert.are.equal(TILE, w:navgrid { tiles = MAP }.cell)
  end)

  it("rejects bad maps clearly", function()
    local w = world()
    raises(function() w:navgrid { tiles = { "..", "..." } } end, "bad argument #1 to 'navgrid'", "tiles",
      "row 2 has 3 tiles")
    raises(function() w:navgrid { tiles = {} } end, "tiles", "no rows")
    raises(function() w:navgrid { tiles = { "..", 5 } } end, "row 2: string expected")
    raises(function() w:navgrid { tiles = 5 } end, "tiles", "table expected")
    raises(function() w:navgrid { tiles = MAP, tile = 0 } end, "tile", "must be > 0")
    raises(function() w:navgrid { tiles = MAP, tile = 100 } end, "larger than the world")
    raises(function() w:navgrid { tiles = MAP, cell = 8 } end, "cell", "use 'tile'")
    raises(function() w:navgrid { tile = 8 } end, "tile", "only with 'tiles'")
    raises(function() w:navgrid { tiles = MAP, walkable = 5 } end, "walkable", "expected, got number")
    raises(function() w:navgrid { tiles = { width = 2, height = 2, data = { 0, 0, 0 } } } end,
      "data has 3 values, width * height is 4")
    raises(function() w:navgrid { tiles = { width = 2, height = 1, data = { 0, "x" } } } end,
      "data[2]: number expected")
    local nav = w:navgrid { tiles = MAP, tile = TILE }
    raises(function() nav:path(center(2, 2), center(30, 20), { radius = -1 }) end, "bad argument #3 to 'path'",
      "radius", "must be >= 0")
    raises(function() nav:path(center(2, 2), center(30, 20), { radius = 1e9 }) end, "at most 31 tiles")
    raises(function() nav:path(center(2, 2), center(30, 20), { radios = 1 }) end, "unknown field 'radios'")
    raises(function() nav:flow_field(center(2, 2), { radius = 0 / 0 }) end, "radius")
    local plain = w:navgrid { cell = 10, clearance = 6 }
    raises(function() plain:path(vec2(20, 20), vec2(200, 200), { radius = 7 }) end,
      "more than the grid's clearance")
  end)

  -- Random pairs of free tiles, for point agents and radii of 0.5, 1.5
  -- and 3 tiles: every path keeps its radius from every blocked tile (a
  -- point agent: never touches one) and ends where asked.
  for _, r in ipairs { 0, 0.5, 1.5, 3 } do
    it("gives paths that keep a radius of " .. r .. " tiles from every blocked tile", function()
      local nav = world():navgrid { tiles = MAP, tile = TILE }
      local s = 7
      local function rnd(n)
        s = (s * 16807) % 2147483647 -- Park-Miller: exact in every Lua
        return s % n
      end
      local found = 0
      for _ = 1, 25 do
        local ax, ay, bx, by
        repeat ax, ay = rnd(COLS), rnd(ROWS) until not blocked(ax, ay)
        repeat bx, by = rnd(COLS), rnd(ROWS) until not blocked(bx, by)
        local p = nav:path(center(ax, ay), center(bx, by), { radius = r * TILE })
        if p then
          found = found + 1
          -- the ends' own legs may start closer (an end near a wall); the
          -- middle of the path keeps the radius
          for i = 2, #p do
            local room = room_along(p[i - 1], p[i], r)
            if r == 0 then
              assert.is_true(room > 0, "touches a blocked tile")
            elseif i > 2 and i < #p then
              assert.is_true(room >= r - 1e-6, ("segment %d keeps only %.4f of %.1f"):format(i, room, r))
            end
          end
        end
      end
      assert.is_true(found > 0)
    end)
  end

  it("plans for every agent size on one grid", function()
    -- From the left room to the right one: a point agent takes the door at
    -- row 5, an agent 1.5 tiles wide cannot and goes round by the gap.
    local nav = world():navgrid { tiles = MAP, tile = TILE }
    local from, to = center(18, 5), center(22, 5)
    local small = assert(nav:path(from, to))
    local big, why = nav:path(from, to, { radius = 1.5 * TILE })
    if big then
      assert.is_true(length(big) > length(small) + 10 * TILE, "the big one goes round")
    else
      assert.is_string(why) -- its ends may have no room: then it says so
    end
    -- (15, 21) is beside a blocked tile: the start's leg out is the one
    -- segment allowed nearer
    local wide = assert(nav:path(center(15, 21), center(27, 20), { radius = 1.5 * TILE }))
    assert.is_true(room_along(wide[1], wide[2], 0) > 0)
    for i = 3, #wide do assert.is_true(room_along(wide[i - 1], wide[i], 1.5) >= 1.5 - 1e-6) end
    -- a number as third argument is still the path's waypoint radius
    assert.are.equal(7, assert(nav:path(from, to, 7)).radius)
  end)

  it("gives flow fields for a radius", function()
    local nav = world():navgrid { tiles = MAP, tile = TILE }
    local goal = center(25, 21)
    local small = assert(nav:flow_field(goal))
    local big = assert(nav:flow_field(goal, { radius = 1.5 * TILE }))
    -- the door at row 5 is open to the small field only
    local p = center(19, 5)
    assert.is_truthy(small:distance(p))
    local d = big:distance(p)
    assert.is_true(d == nil or d > small:distance(p))
  end)

  it("set_tile changes one tile, and the grid equals one built from the changed map", function()
    local w = world()
    local nav = w:navgrid { tiles = MAP, tile = TILE }
    local rows = {}
    for i, r in ipairs(MAP) do rows[i] = r end
    local function put(x, y, wall)
      local r = rows[y + 1]
      rows[y + 1] = r:sub(1, x) .. (wall and "#" or ".") .. r:sub(x + 2)
      nav:set_tile(x, y, wall)
    end
    -- close the door at row 5 and open a wide gap at rows 10..14
    put(20, 5, true)
    for y = 10, 14 do put(20, y, false) end
    put(5, 5, true)
    local fresh = w:navgrid { tiles = rows, tile = TILE }
    for y = 0, ROWS - 1 do
      for x = 0, COLS - 1 do assert.are.equal(fresh:blocked(x, y), nav:blocked(x, y)) end
    end
    for _, r in ipairs { 0, 0.5, 1.5 } do
      local a = assert(nav:path(center(18, 5), center(22, 5), { radius = r * TILE }))
      local b = assert(fresh:path(center(18, 5), center(22, 5), { radius = r * TILE }))
      assert.are.equal(#a, #b)
      for i = 1, #a do assert.is_true(a[i] == b[i]) end
      assert.is_true(length(a) > 4 * TILE, "the door is shut")
    end
    raises(function() nav:set_tile(COLS, 0, true) end, "bad argument #1 to 'set_tile'", "must be in 0..39")
    raises(function() nav:set_tile(0, -1, true) end, "bad argument #2 to 'set_tile'")
    raises(function() nav:set_tile(0, 0, 1) end, "boolean expected")
    raises(function() w:navgrid():set_tile(0, 0, true) end, "set_tile needs a tile navgrid")
  end)

  it("add_tiles puts the blocked tiles in the world as merged rectangles", function()
    local w = world()
    local obs = w:add_tiles { tiles = MAP, tile = TILE }
    local nblocked = 0
    for y = 0, ROWS - 1 do
      for x = 0, COLS - 1 do if blocked(x, y) then nblocked = nblocked + 1 end end
    end
    assert.is_true(#obs > 0 and #obs < nblocked / 2, ("%d rectangles for %d tiles"):format(#obs, nblocked))
    -- every tile centre lies in exactly one rectangle when blocked, none when free
    local boxes = {}
    for i, o in ipairs(obs) do
      assert.are.equal("polygon", o.kind)
      local pts = o.points
      local x0, y0, x1, y1 = math.huge, math.huge, -math.huge, -math.huge
      for _, p in ipairs(pts) do
        x0, y0 = math.min(x0, p.x), math.min(y0, p.y)
        x1, y1 = math.max(x1, p.x), math.max(y1, p.y)
      end
      boxes[i] = { x0, y0, x1, y1 }
    end
    for y = 0, ROWS - 1 do
      for x = 0, COLS - 1 do
        local c, inside = center(x, y), 0
        for _, b in ipairs(boxes) do
          if c.x > b[1] and c.x < b[3] and c.y > b[2] and c.y < b[4] then inside = inside + 1 end
        end
        assert.are.equal(blocked(x, y) and 1 or 0, inside)
      end
    end
    raises(function() w:add_tiles { tiles = MAP, tile = -1 } end, "bad argument #1 to 'add_tiles'", "tile")
    raises(function() w:add_tiles { tiles = MAP, cell = 3 } end, "unknown field 'cell'")
    raises(function() w:add_tiles { tiles = { ".", ".." } } end, "row 2 has 2 tiles")
  end)

  it("is deterministic: same map, same paths; agents following them agree on 1 and 2 threads", function()
    local sums = {}
    for _, threads in ipairs { 1, 2 } do
      local w = world(threads)
      local nav = w:navgrid { tiles = MAP, tile = TILE }
      local agents = {}
      for i, r in ipairs { 0, 0.5, 1.5 } do
        local a = w:spawn { pos = center(2 + i, 25), max_speed = 40, radius = math.max(r * TILE, 1) }
        local p = nav:path(a.pos, center(36, 3), { radius = r * TILE })
        if p then a.behaviors = { { "follow_path", path = p } } end
        agents[#agents + 1] = a
      end
      for _ = 1, 120 do w:step(1 / 60) end
      for _, a in ipairs(agents) do
        assert.is_true(a.pos:dist(center(3, 25)) > 20, "every size found a path and followed it")
      end
      sums[threads] = w:checksum()
      local p1 = nav:path(center(3, 25), center(36, 3))
      local p2 = w:navgrid { tiles = MAP, tile = TILE }:path(center(3, 25), center(36, 3))
      assert.are.equal(#p1, #p2)
      for i = 1, #p1 do assert.is_true(p1[i] == p2[i]) end
    end
    assert.are.equal(sums[1], sums[2])
  end)
end)

describe("add_tiles{ nav = ... } walls follow nav:set_tile", function()
  -- Which tiles the world's rectangle obstacles cover, read back from
  -- world:obstacles() (not the walls' own records).
  local function covered(w, cols, tile)
    local cover = {}
    for _, o in ipairs(w:obstacles()) do
      if o.kind == "polygon" then
        local x0, y0, x1, y1 = math.huge, math.huge, -math.huge, -math.huge
        for _, p in ipairs(o.points) do
          x0, y0 = math.min(x0, p.x), math.min(y0, p.y)
          x1, y1 = math.max(x1, p.x), math.max(y1, p.y)
        end
        for y = math.floor(y0 / tile + 0.5), math.floor(y1 / tile + 0.5) - 1 do
          for x = math.floor(x0 / tile + 0.5), math.floor(x1 / tile + 0.5) - 1 do
            local k = y * cols + x
            cover[k] = (cover[k] or 0) + 1
          end
        end
      end
    end
    return cover
  end

  local function same_as_map(w, map, tile)
    local rows, cols = #map, #map[1]
    local cover = covered(w, cols, tile)
    for y = 0, rows - 1 do
      for x = 0, cols - 1 do
        local want = map[y + 1]:sub(x + 1, x + 1) == "#" and 1 or nil
        local got = cover[y * cols + x]
        if got ~= want then return false, ("tile %d %d covered %s"):format(x, y, got) end
      end
    end
    return true
  end

  it("equal the walls of the changed map after every set_tile", function()
    local map = {}
    for y = 1, ROWS do map[y] = MAP[y] end
    local w = world()
    local nav = w:navgrid { tiles = map, tile = TILE }
    local walls = w:add_tiles { tiles = map, tile = TILE, nav = nav }
    assert.is_true(#walls > 0)
    assert.is_true(same_as_map(w, map, TILE))
    local s = 7
    for k = 1, 120 do
      s = (s * 16807) % 2147483647
      local x, y = s % COLS, math.floor(s / COLS) % ROWS
      local shut = k % 2 == 0
      nav:set_tile(x, y, shut)
      map[y + 1] = map[y + 1]:sub(1, x) .. (shut and "#" or ".") .. map[y + 1]:sub(x + 2)
      local ok, why = same_as_map(w, map, TILE)
      assert.is_true(ok, why)
    end
    -- and a world built from the changed map covers the same tiles
    local w2 = world()
    w2:add_tiles { tiles = map, tile = TILE }
    assert.is_true(same_as_map(w2, map, TILE))
  end)

  it("takes only a tile navgrid of the same map, once", function()
    local w = world()
    local nav = w:navgrid { tiles = MAP, tile = TILE }
    raises(function() w:add_tiles { tiles = MAP, tile = TILE, nav = 3 } end,
      "bad argument #1 to 'add_tiles' (field 'nav': steer.navgrid expected)")
    raises(function() w:add_tiles { tiles = { "..", ".." }, tile = TILE, nav = nav } end,
      "(field 'nav': a tile navgrid of the same map expected)")
    raises(function() w:add_tiles { tiles = MAP, tile = TILE, nav = w:navgrid { cell = 10 } } end,
      "a tile navgrid of the same map expected")
    w:add_tiles { tiles = MAP, tile = TILE, nav = nav }
    raises(function() w:add_tiles { tiles = MAP, tile = TILE, nav = nav } end, "have walls already")
  end)
end)
