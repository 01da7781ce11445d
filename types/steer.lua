---@meta steer
-- luacheck: ignore (declarations only: every body is empty on purpose)
-- LuaLS annotations for the `steer` module (API.md, contract version 1).
-- Point the language server at this folder ("workspace.library") to get
-- completion and type checks in scenes and brains. Nothing here runs.
--
-- Units: world units (pixels in the app), seconds, radians; angles run from
-- +x towards +y. Every number handed to steer must be finite (nan and inf are
-- bad arguments), and bad arguments raise standard Lua errors naming the
-- function and the argument.

---A point or vector: a vec2, a table `{x =, y =}` or a table `{x, y}`.
---@alias steer.point steer.vec2|{x: number, y: number}|number[]

---An RGB colour, each component an integer in 0..255.
---@alias steer.color integer[]

---@alias steer.edges "wrap"|"bounce"|"none"
---@alias steer.combine "sum"|"priority"
---@alias steer.deceleration "slow"|"normal"|"fast"

---@class steer
---@field version string         library version, like "1.1.0"
---@field backend "c"|"ffi"      (extension) how the bindings run: "ffi" under LuaJIT with its FFI backend
---                               (API.md "Lua versions"), "c" on every other Lua and with STEER_FFI=0
---@field vec2 steer.vec2lib      vec2 constructor (callable) and helpers
---@field agent steer.agent       (extension) every agent method as a plain function, the same objects
---                               `a.evade` and the rest give: `steer.agent.evade(a, h)` is `a:evade(h)`;
---                               a brain keeps the ones it calls in locals (no `__index` call each time)
local steer = {}

-- ---------------------------------------------------------------- vec2

---An immutable 2D vector (userdata, metatable `steer.vec2`; under LuaJIT's
---FFI backend a `steer_vec2` cdata with the same fields, methods, operators,
---results and errors). Operators:
---`a + b`, `a - b` (either side may be a point table), `-a`, `a * s`,
---`s * a`, `a / s`, `a == b`. A result that is not finite raises.
---@class steer.vec2
---@field x number  read only
---@field y number  read only
---@operator add(steer.point): steer.vec2
---@operator sub(steer.point): steer.vec2
---@operator unm: steer.vec2
---@operator mul(number): steer.vec2
---@operator div(number): steer.vec2
local vec2 = {}

---@return number length
function vec2:len() end

---@return number squared length
function vec2:len2() end

---Unit vector in the same direction; the zero vector stays zero (never nan).
---@return steer.vec2
function vec2:normalized() end

---@param b steer.point
---@return number
function vec2:dot(b) end

---z of the 3D cross product: > 0 when b lies counter-clockwise of self (towards +y).
---@param b steer.point
---@return number
function vec2:cross(b) end

---@param b steer.point
---@return number
function vec2:dist(b) end

---@param b steer.point
---@return number squared distance
function vec2:dist2(b) end

---@return number radians, atan2(y, x)
function vec2:angle() end

---@param rad number radians, towards +y
---@return steer.vec2
function vec2:rotated(rad) end

---@return steer.vec2 (-y, x)
function vec2:perp() end

---Shortened to at most max; shorter vectors come back unchanged.
---@param max number >= 0
---@return steer.vec2
function vec2:truncated(max) end

---self + (b - self) * t; t outside 0..1 extrapolates.
---@param b steer.point
---@param t number
---@return steer.vec2
function vec2:lerp(b, t) end

---@return number x
---@return number y
function vec2:unpack() end

---`steer.vec2(x, y)` makes a vector; the table also holds the helpers.
---@class steer.vec2lib
---@overload fun(x: number, y: number): steer.vec2
local vec2lib = {}

---The vector of length len (default 1) at angle rad.
---@param rad number
---@param len? number
---@return steer.vec2
function vec2lib.from_angle(rad, len) end

-- ---------------------------------------------------------------- world

---@class steer.world_def
---@field width? number      > 0, default 800
---@field height? number     > 0, default 600
---@field edges? steer.edges default "wrap"
---@field seed? integer      every random number of the world comes from it; default 1
---@field dt? number         (extension) fixed step in seconds, > 0; default 1/60
---@field cell_size? number  (extension) neighbour grid cell in world units, > 0; default 50. About the radius of the most common query is best: queries then read 3 rows of cells
---@field threads? integer   (extension) threads for the standing-behaviour pass, 1..1024; default 1; results do not depend on it
---@field contacts? boolean   (extension) resolve overlapping bodies after every step (see world.contacts); default false

---A simulation: agents, obstacles, walls and a seeded random stream.
---@class steer.world
---@field width number      read only
---@field height number     read only
---@field tick integer      read only: steps taken
---@field time number       read only: simulated seconds
---@field dt number         read only: the fixed step (default 1/60)
---@field edges steer.edges (extension) read only
---@field seed integer      (extension) read only
---@field threads integer   (extension) read only: threads of the standing pass
---@field cell_size number  (extension) read only: the neighbour grid's cell size
---@field on_error? fun(agent: steer.agent, message: string) called with each brain runtime error (message with traceback); nil: world:step raises the first one after finishing the step
---@field max_steps integer  (extension) read/write: the most steps one world:advance runs (default 8, >= 1)
---@field dropped_steps number (extension) read only: steps' worth of time world:advance dropped past max_steps
---@field nav steer.navgrid|nil (extension) the navgrid orders plan on when they name none: the world's first navgrid, or what is assigned (nil: none)
---@field path_budget integer (extension) read/write: path search work a step may take for orders (default 2048 units: a cell taken from a search's open list, or a raw path point smoothed)
---@field path_pending integer (extension) read only: path requests waiting in the queue (the one being searched included)
---@field path_work integer (extension) read only: path search work the last step took (<= path_budget)
---@field contacts boolean   (extension) after moving, overlapping bodies are pushed apart (a locked agent does not move) and out of obstacles, and lose the velocity that drove them in; a few passes a step, deterministic
---@field user table        (extension) the scene's own state: a plain table kept with the world, so it survives scene and brain reloads; brains reach it as agent.world.user. Assignable (a table only)
local world = {}

---@param def? steer.world_def
---@return steer.world
function steer.world(def) end

---@class steer.spawn_def
---@field pos? steer.point
---@field vel? steer.point
---@field heading? steer.point        non-zero; else the direction of vel, else {1, 0}
---@field max_speed? number           >= 0, default 150
---@field max_force? number           >= 0, default 400
---@field mass? number                > 0, default 1
---@field radius? number              >= 0, default 6
---@field tag? string
---@field color? steer.color          default {200, 200, 200}
---@field combine? steer.combine      default "sum"
---@field wander_distance? number     >= 0, default 60
---@field wander_radius? number       >= 0, default 30
---@field wander_jitter? number       >= 0 (units per second), default 240
---@field turn_rate? number           >= 0 rad/s, math.huge (default): the facing follows the velocity at once
---@field behaviors? steer.behavior[] standing behaviours
---@field brain? string|steer.brain   a module name (resolved with require) or a brain table
---@field avoidance? steer.avoidance    default "none"
---@field avoid_range? number           neighbour distance for ORCA and avoid_agents; default automatic
---@field avoid_max_neighbors? integer  0..64, default 10
---@field avoid_horizon? number         s, > 0; default automatic
---@field avoid_horizon_obstacles? number s, > 0; default automatic
---@field avoid_priority? number        >= 0, default 1
---@field avoid_layer? integer          bit set, default 1
---@field avoid_mask? integer           bit set, default 0xFFFFFFFF
---@field locked? boolean               default false
---@field [string] any                every other field seeds agent.self

---Spawns an agent at the end of the spawn order; brain.spawn(self, agent)
---runs at once. Inside a step the new agent's brain starts on the next step.
---@param def? steer.spawn_def
---@return steer.agent
function world:spawn(def) end

---Removes at once; later use of the agent raises "attempt to use a removed
---agent" (agent.alive and agent.id stay readable). Removing twice raises.
---@param agent steer.agent
function world:remove(agent) end

---@param tag? string
---@return integer live agents (with that tag)
function world:count(tag) end

---Live agents in spawn order; removals and spawns inside the loop are fine.
---@param tag? string
---@return fun(): steer.agent
function world:agents(tag) end

---@class steer.query_opts
---@field tag? string
---@field fov? number          full view-cone angle in radians, centred on the heading
---@field heading? steer.point cone axis; needed with fov when querying around a point (for an agent: its heading)

---Agents within radius, nearest first, excluding the agent itself. In a
---wrap world distances are the shortest across the edges.
---@param center steer.agent|steer.point
---@param radius number >= 0
---@param opts? steer.query_opts
---@return steer.agent[]
function world:neighbors(center, radius, opts) end

---The nearest agent within radius (never the agent itself), and its distance.
---@param center steer.agent|steer.point
---@param radius number >= 0
---@param tag? string
---@return steer.agent|nil agent
---@return number? distance
function world:nearest(center, radius, tag) end

---A circle for avoid_obstacles, hide and ORCA.
---@param center steer.point
---@param radius number >= 0
---@return integer id
function world:obstacle(center, radius) end

---@class steer.obstacle_def
---@field pos? steer.point         a circle's centre (with radius)
---@field radius? number           a circle: >= 0
---@field polygon? steer.point[]   a closed polygon: 3 or more points, any winding, not self-intersecting
---@field polyline? steer.point[]  an open chain of segments, solid on both sides: 2 or more points

---An obstacle that avoid_obstacles, avoid_walls (polygon and polyline
---edges), hide, contacts and ORCA all see. Give exactly one shape.
---@param def steer.obstacle_def
---@return steer.obstacle
function world:add_obstacle(def) end

---The blocked tiles of a tile map (as world:navgrid{ tiles = ... } takes it;
---the map's corner at the origin) as closed rectangle obstacles, runs of
---blocked tiles merged with the same runs below, so steering, ORCA and
---contacts meet the walls the tile navgrid plans around. With `nav`, a tile
---navgrid of the same map, the walls follow nav:set_tile (only the
---rectangles at the changed tile change).
---@param def { tiles: string[]|steer.tile_layer, tile?: number, walkable?: string|table|fun(tile: string|number): any, nav?: steer.navgrid }
---@return steer.obstacle[]
function world:add_tiles(def) end

---Removes it at once (an obstacle, or the id world:obstacle returned).
---Removing it again raises "attempt to remove a removed obstacle".
---@param obstacle steer.obstacle|integer
function world:remove_obstacle(obstacle) end

---Every obstacle, in the order added (circles from world:obstacle too).
---@return steer.obstacle[]
function world:obstacles() end

---(extension) A raycast's options (API.md "raycasts").
---@class steer.raycast_opts
---@field obstacles? boolean circles, polygons, polylines; default true
---@field walls? boolean default true
---@field agents? boolean agents as discs of their radius; default false
---@field tag? string agents with this tag only
---@field ignore? steer.agent never hit (the caster)

---(extension) What a ray hit first.
---@class steer.raycast_hit
---@field point steer.vec2 where the ray meets the outline
---@field normal steer.vec2 unit, the outline's normal there, facing the ray's start
---@field fraction number in [0, 1]: point = from + fraction * (to - from)
---@field distance number from `from` to point
---@field kind "circle"|"polygon"|"polyline"|"wall"|"agent"
---@field obstacle? steer.obstacle circle, polygon and polyline hits
---@field wall? integer wall hits: the id world:wall returned
---@field agent? steer.agent agent hits

---(extension) Exact line of sight: the first shape on the segment from -> to
---(circles, polygons, polylines, walls; agents when asked), or nil. Shapes
---that hold `from` are not hit; segments are solid on both sides; the ray
---does not cross a wrap world's edges. Unlike navgrid:visible it keeps no
---clearance: it sees exactly what the geometry hides.
---@param from steer.point
---@param to steer.point
---@param opts? steer.raycast_opts
---@return steer.raycast_hit|nil
function world:raycast(from, to, opts) end

---(extension) Sends a message: `to` is an agent, a list of agents, or a tag
---(every live agent with that tag now, in spawn order). Each recipient's
---brain.message(self, agent, msg) gets it at the first step whose brain
---pass starts at world.tick >= now + ceil(delay / world.dt), before the
---updates, in the order (delivery tick, send order; a list in list order).
---A message sent during a step arrives at a later step. A recipient
---removed, brainless, paused or without brain.message drops it. Snapshots
---keep queued messages. Raises for a bad recipient, a kind that is not a
---string, or a delay that is negative or not finite.
---@param to steer.agent|steer.agent[]|string
---@param kind string
---@param data any
---@param delay? number seconds, >= 0; default 0 (the next step)
---@return integer recipients
function world:send(to, kind, data, delay) end

---(extension) A noise at pos carrying `radius` world units: heard by the
---next a:perceive (once per agent, within ST_NOISE_TICKS = 60 ticks) of
---agents whose hearing range reaches it (distance <= radius + hearing.range).
---data (any value) comes with it; when data is an agent, or a table whose
---`from` is one, that agent is the noise's source and hearers remember it.
---@param pos steer.point
---@param radius number >= 0
---@param data? any
function world:noise(pos, radius, data) end

---A segment for avoid_walls.
---@param from steer.point
---@param to steer.point
---@return integer id
function world:wall(from, to) end

---One step: every brain's update (spawn order), then the standing
---behaviours, then physics. dt (> 0) overrides world.dt for this step.
---Behaviours called since the last step are computed again with this dt
---first ("force requests"): the same forces as the same calls inside it.
---Calling it from inside a step raises "world:step called inside a step".
---@param dt? number
function world:step(dt) end

---(extension) A game loop's frame: adds frame_dt (>= 0) to the world's
---accumulator and runs every step of world.dt it holds, at most
---world.max_steps (8); time past that is dropped and counted in
---world.dropped_steps. Returns the steps run and alpha, how far (0..1) the
---accumulator is into the next step, to draw with agent:render_pos(alpha).
---before_step(world, dt), when given, runs before each step (a game's or a
---scene's per-step update; behaviours it asks for hold for that step).
---@param frame_dt number
---@param before_step? fun(world: steer.world, dt: number)
---@return integer steps
---@return number alpha
function world:advance(frame_dt, before_step) end

---(extension) Names this moment for the host: the app puts the label on its
---timeline and in --record files. Never changes the world or its checksum;
---with no host listening (stock lua5.4) it only returns the tick.
---@param label string 1 to 64 bytes
---@return integer tick the world's current tick
function world:mark(label) end

---Like math.random, from the world's seeded stream: no argument gives a
---float in [0, 1); (m) an integer in [1, m] (0: any integer); (m, n) an
---integer in [m, n].
---@param m? integer
---@param n? integer
---@return number
function world:random(m, n) end

---@return string checksum 16 lowercase hex digits: a 64-bit hash of every agent's state, exact on every Lua
function world:checksum() end

---@class steer.navgrid_def
---@field cell? number       cell side, > 0; default 10 (not with tiles)
---@field clearance? number  distance paths keep from obstacles and walls, >= 0; default 6 (tiles: 0, the default agent radius)
---@field tiles? string[]|steer.tile_layer a tile map: rows of characters ('.' free), or a Tiled-style layer (0 free)
---@field tile? number       tile side with tiles, > 0; default: the map fills the world
---@field walkable? string|table|fun(tile: string|number): any which tiles are free: the free characters, a set, or a test (asked once a character)

---A Tiled-style layer: width * height numbers, row-major.
---@class steer.tile_layer
---@field width integer
---@field height integer
---@field data number[]

---Agent options for tile-grid queries.
---@class steer.nav_agent
---@field radius? number agent radius, >= 0; default the grid's clearance (tile grids: up to 31 tiles)

---A navigation grid over the world's rectangle, made from its obstacles and
---walls inflated by the clearance; it follows obstacles that move or go.
---Or, with `tiles`, a grid of the map's tiles (it reads only them) that
---plans for every agent radius. Keeps the world alive.
---@param def? steer.navgrid_def
---@return steer.navgrid
function world:navgrid(def) end

---(extension) Orders the agents to goal as one group: one path search for
---them all (and up to two more around a door the group would queue at,
---the members shared among the routes by expected arrival), which each
---member follows in its own lane; slots in the
---pattern on free space at the goal, given so that members keep their
---arrangement and do not cross, and moved up as members come in. A route
---over a navgrid link is followed point by point (no lanes, no split) and
---brain.traverse_link is called once per member at the link's start.
---Returns the group (nil when no agent is alive).
---@param agents steer.agent[]
---@param goal steer.point
---@param opts? steer.group_opts
---@return integer|nil group
function world:move_group(agents, goal, opts) end

---(extension) A group's slots, inner first (the middle of the front row
---first), and whether each is taken; {} once the group has no members.
---@param group integer
---@return { pos: steer.vec2, taken: boolean }[]
function world:group_slots(group) end
---(extension) A copy of the whole world (API.md "Snapshots"): restore it
---with world:restore. Read-only.
---@class steer.snapshot
---@field tick integer world.tick at capture
---@field time number world.time at capture
---@field checksum string world:checksum() at capture (16 hex digits)
---@field count integer live agents captured
---@field memory integer bytes the snapshot holds
local snapshot = {}

---Writes the snapshot to a file (disabled in the app's sandbox). Raises
---for what a file cannot hold: "snapshot: agent 12: a follow_flow field
---cannot be saved to a file", "snapshot: world.user.sight: a steer.navgrid
---cannot be saved to a file" (also a steer.formation), and brains no module
---name reaches.
---@param path string
---@return true|nil ok
---@return string|nil message
function snapshot:save(path) end

---The bytes a file holds; raises as snap:save does.
---@return string
function snapshot:encode() end

---(extension) Captures the world, each brain's `self`, world.user and
---`scene_data` (any savable value). Raises "snapshot: <key path>: cannot
---snapshot a function" (etc.) for what cannot be saved; outside a step only.
---Flow fields, navgrids and formations are held by reference (the snapshot
---keeps them alive); formations it reaches are also copied and put back at
---restore, navgrids re-read the restored obstacles.
---@param scene_data? any
---@return steer.snapshot
function world:snapshot(scene_data) end

---(extension) Puts the world back as `snap` holds it; returns a copy of the
---scene data given to world:snapshot. Agents not in the snapshot read as
---removed; those in it are alive again.
---@param snap steer.snapshot
---@return any scene_data
function world:restore(snap) end

-- ---------------------------------------------------------------- obstacles

---@alias steer.obstacle_kind "circle"|"polygon"|"polyline"
---@alias steer.avoidance "none"|"orca"

---An obstacle of a world. After world:remove_obstacle only id, kind and
---alive stay readable; anything else raises "attempt to use a removed obstacle".
---@class steer.obstacle
---@field id integer                 read only
---@field kind steer.obstacle_kind   read only
---@field pos steer.vec2             a circle's centre, a polygon's mean point; assigning moves it (ORCA sees a circle that moved as moving)
---@field radius number              read only: a circle's radius, a polygon's bounding radius about pos
---@field points steer.vec2[]        read only: a polygon's or polyline's points (a copy); empty for a circle
---@field alive boolean              read only

-- ---------------------------------------------------------------- paths

---An immutable polyline for follow_path. `#path` is its point count and
---`path[i]` its i-th point (a vec2, nil out of range).
---@class steer.path
---@field loop boolean   read only
---@field radius number  read only: arrival radius of each waypoint
local path = {}

---@return steer.vec2[] a fresh array of the points
function path:points() end

---The distance left (world units): the straight way from `pos` to waypoint
---`index`, then waypoint to waypoint to the last point (a loop: round to its
---first point, the end of the lap). `pos` may be an agent: its position, and
---`index` defaults to its path_index when it follows this path. Default
---index otherwise: the waypoint after the point of the path nearest to pos.
---@param pos steer.point|steer.agent
---@param index? integer >= 1; past an open path's end: its last point; on a loop it wraps
---@return number
function path:remaining(pos, index) end
---The segments of a navgrid path that take an off-mesh link, in order:
---link `link` runs from path[index] (link.from, or link.to for the way
---back of a two-way link) to path[index + 1]. Empty for other paths.
---@return { index: integer, link: steer.nav_link }[]
function path:links() end

---@class steer.path_def
---@field loop? boolean default false
---@field radius? number > 0, default 20
---@field [integer] steer.point at least one

---@param def steer.path_def points in order, plus loop and radius
---@return steer.path
function steer.path(def) end

-- ---------------------------------------------------------------- navigation

---@alias steer.nav_reason "no route"|"start blocked"|"goal blocked"|"outside the world"|"radius too large"

---A navigation grid (world:navgrid). Read only.
---@class steer.navgrid
---@field cell number         cell side
---@field clearance number    distance kept from obstacles and walls
---@field cols integer
---@field rows integer
---@field snap_radius number  how far a blocked start or goal is moved to a free cell
---@field tiled boolean       made from tiles
local navgrid = {}

---A shortest any-angle path from `from` to `to` keeping the clearance, or
---nil and the reason. A start or goal in a blocked cell is moved to the
---nearest free cell within snap_radius.
---@param from steer.point
---@param to steer.point
---A table { radius = r } plans for an agent of radius r on the same grid
---(tile grids; an obstacle grid takes r <= clearance).
---@param from steer.point
---@param to steer.point
---@param radius? number|steer.nav_agent waypoint radius of the path, > 0 (default the cell size), or agent options
---@return steer.path|nil
---@return steer.nav_reason|nil
function navgrid:path(from, to, radius) end

---Whether the segment a-b keeps the clearance from every obstacle and wall.
---@param a steer.point
---@param b steer.point
---@return boolean
function navgrid:visible(a, b) end

---Whether the cell under p (or cell cx, cy, from 0) is blocked; outside is.
---@param p steer.point|integer
---@param cy? integer
---@return boolean
function navgrid:blocked(p, cy) end

---The centres of the blocked cells (for drawing).
---@return steer.vec2[]
function navgrid:cells() end

---Blocks or frees tile (x, y) (from 0) of a tile grid; only the tiles
---around it are recomputed, and the grid equals one made from the changed map.
---@param x integer
---@param y integer
---@param blocked boolean
function navgrid:set_tile(x, y, blocked) end

---An off-mesh link (nav:link): a plain table; add fields of your own.
---@class steer.nav_link
---@field id integer     unique in the world
---@field from steer.vec2
---@field to steer.vec2
---@field both boolean   also from `to` to `from`
---@field cost number    what the search counts for taking it (world units)
---@field kind? string   yours: "jump", "ladder", "door", "teleport"...

---@class steer.nav_link_opts
---@field both? boolean  default false: one way, from a to b
---@field cost? number   >= 0, finite; default the distance from a to b
---@field kind? string

---Adds an off-mesh link (a jump, ladder, door, teleport) from a to b (inside
---the grid's map or world): later paths may take it from the cell (tile)
---under a to the one under b, when both are free (have room for the agent).
---@param a steer.point
---@param b steer.point
---@param opts? steer.nav_link_opts
---@return steer.nav_link
function navgrid:link(a, b, opts) end

---Removes a link (nav:link's table or its id); false when the grid had none such.
---@param link steer.nav_link|integer
---@return boolean
function navgrid:unlink(link) end

---Recomputes the cells of obstacles changed since the last query (queries
---do this themselves); returns how many cells were rasterised.
---@return integer
function navgrid:update() end

---A flow field towards goal over the free cells, or nil and the reason.
---@param goal steer.point
---@param opts? steer.nav_agent the agent's radius (tile grids)
---@return steer.flowfield|nil
---@return steer.nav_reason|nil
function navgrid:flow_field(goal, opts) end

---Directions to one goal for every cell (navgrid:flow_field). A snapshot:
---it does not follow later obstacle changes. Read only.
---@class steer.flowfield
---@field goal steer.vec2
---@field cell number
---@field cols integer
---@field rows integer
local flowfield = {}

---The unit direction to go at p (blended between cell centres).
---@param p steer.point
---@return steer.vec2
function flowfield:dir(p) end

---The travel distance from p's cell to the goal, nil when unreachable.
---@param p steer.point
---@return number|nil
function flowfield:distance(p) end

-- ---------------------------------------------------------------- behaviours

---@alias steer.behavior_name "seek"|"flee"|"arrive"|"pursue"|"evade"|"intercept"|"wander"|"separate"|"align"|"cohere"|"flock"|"avoid_obstacles"|"avoid_walls"|"contain"|"follow_path"|"offset_pursue"|"interpose"|"hide"|"avoid_agents"|"follow_flow"|"face"|"look_where_going"|"match_velocity"|"follow_leader"|"queue"|"stop"|"graze"

---One standing behaviour: the name first, then the method's parameters by
---name. Unknown names and fields raise. A bare string ("wander") is short
---for {"wander"}. Reading agent.behaviors gives back an equivalent list
---(points as vec2s).
---@class steer.behavior
---@field [1] steer.behavior_name
---@field weight? number
---@field target? steer.point|steer.agent  seek, flee, arrive (point or agent); pursue, evade, intercept (agent)
---@field panic_radius? number             flee
---@field slowing_radius? number           arrive
---@field deceleration? steer.deceleration arrive
---@field threat_radius? number            evade
---@field leader? steer.agent              offset_pursue, follow_leader
---@field offset? steer.point|number       offset_pursue (a point); follow_path (a distance along the path)
---@field a? steer.agent                   interpose
---@field b? steer.agent                   interpose
---@field threat? steer.agent              hide
---@field path? steer.path                 follow_path
---@field field? steer.flowfield           follow_flow
---@field mode? steer.path_mode            follow_path, default "waypoints"
---@field predict? number                  follow_path ("predict"): seconds ahead, default 0.5
---@field time? number                     match_velocity: time to target (s), default 0.1
---@field distance? number                 follow_leader: behind the leader, default 30; queue: braking box
---@field zone? number                     follow_leader: length of the zone ahead of the leader
---@field radius? number                   flock, separate, align, cohere: neighbour radius
---@field fov? number                      flock, separate, align, cohere
---@field tag? string                      flock, separate, align, cohere
---@field separation? number               flock
---@field alignment? number                flock
---@field cohesion? number                 flock
---@field separation_radius? number        flock, separate
---@field rect? number[]                    contain: {x, y, w, h} instead of the world's rectangle
---@field rest? number                     graze: share of bouts stood still, 0..1 (default 0.4)
---@field bout? number                     graze: a bout's length in seconds, > 0 (default 3)
---@field pace? number                     graze: slowest walking speed, share of max_speed, 0..1 (default 0.3)
---(face and match_velocity take `target` too: a point or an agent; for
---match_velocity a point is the velocity to match. queue takes `tag`.)

---@alias steer.path_mode
---| "waypoints" # seek each waypoint until inside path.radius of it (the default)
---| "predict"   # Reynolds: predict, project onto the path, seek ahead along it when outside the corridor

---@class steer.follow_path_opts
---@field mode? steer.path_mode  default "waypoints"
---@field predict? number        >= 0 s of travel predicted ahead, default 0.5
---@field offset? number         >= 0 units along the path past the projection, default 20
---@field weight? number         default 1

---@class steer.follow_leader_opts
---@field distance? number  >= 0 units behind the leader, default 30
---@field zone? number      >= 0 length of the zone ahead of the leader; default distance + 1 s of the leader's travel
---@field weight? number    default 1

---@class steer.queue_opts
---@field distance? number  >= 0 braking box beyond the two radii; default radius + 0.25 s at max speed
---@field tag? string       brake only for agents with this tag
---@field weight? number    default 1

---@class steer.flock_opts
---@field radius? number             neighbour radius, default 50
---@field fov? number                view cone, default 270 degrees
---@field tag? string                flock only with this tag
---@field separation? number         default 1.5
---@field alignment? number          default 1
---@field cohesion? number           default 1
---@field separation_radius? number  default radius / 2
---@field weight? number             default 1

-- ---------------------------------------------------------------- agents

---A vehicle. Removed agents raise "attempt to use a removed agent" on every
---use except `alive` and `id`. Unknown fields read as nil and raise on write
---(keep brain state in agent.self). Under LuaJIT's FFI backend the vector
---fields (pos, vel, heading, side, force) read as FFI vec2 structs: type()
---says "cdata", everything else is steer.vec2's (docs/API.md).
---@class steer.agent
---@field pos steer.vec2
---@field vel steer.vec2                 truncated to max_speed on write
---@field max_speed number               >= 0
---@field max_force number               >= 0
---@field mass number                    > 0
---@field radius number                  >= 0
---@field tag string|nil
---@field color steer.color
---@field combine steer.combine
---@field wander_distance number         >= 0
---@field wander_radius number           >= 0
---@field wander_jitter number           >= 0
---@field behaviors steer.behavior[]|nil standing behaviours; nil clears them
---@field id integer                     read only, never reused
---@field heading steer.vec2             read only, unit vector: the facing (the direction of travel unless turn_rate or face say otherwise)
---@field turn_rate number               >= 0 rad/s the facing may turn; math.huge (default): unlimited
---@field side steer.vec2                read only, heading turned +90 degrees
---@field speed number                   read only
---@field force steer.vec2               read only: the steering force applied in the last step
---@field alive boolean                  read only
---@field world steer.world              read only
---@field self table                     read only: the brain's state table
---@field avoidance steer.avoidance      "orca": the velocity steering asks for becomes ORCA's preferred velocity, and the agent moves at the closest one that collides with nothing within the horizons
---@field avoid_range number             ORCA's and avoid_agents' neighbour distance; nil: automatic (max(10 x radius, max_speed x 1 s)), which reading shows
---@field avoid_max_neighbors integer    0..64: ORCA looks at this many nearest; default 10
---@field avoid_horizon number           s, > 0: how far ahead agents are avoided; nil: automatic (range / max_speed within [0.5, 10])
---@field avoid_horizon_obstacles number s, > 0: how far ahead obstacles are avoided; nil: the agent horizon
---@field avoid_priority number          >= 0, default 1: of two ORCA agents the lower takes the larger share of avoiding (other / (own + other)); 0 against a higher one takes all
---@field avoid_layer integer            bit set: the layers this agent is on; default 1
---@field avoid_mask integer             bit set: the layers it avoids (ORCA and avoid_agents); default 0xFFFFFFFF
---@field locked boolean                 others avoid it entirely and it never changes its velocity for them
---@field move_state steer.move_state     (extension) read only: "idle", "waiting", "moving", "arrived", "stuck" or "failed"
---@field move_remaining number|nil      (extension) read only: distance left along its route (0 arrived, math.huge waiting, nil without an order)
---@field move_goal steer.vec2|nil       (extension) read only: where its order ends (a group member: its slot once it has one)
---@field move_group integer|nil         (extension) read only: its group from world:move_group
---@field move_slot integer|nil          (extension) read only: its slot in the group (index into world:group_slots)
---@field think_every integer          (extension) its brain.update runs every n ticks (1..1000000, default 1), staggered: at ticks where (tick + id) % n == 0; dt is then the time since its last update
---@field think_age integer            (extension) read only: steps since its brain.update last ran (inside the update: the steps it covers)
---@field path_index integer|nil         the waypoint (1-based) it heads for on the path it follows (predict mode: the end of its segment); nil until it first follows one. Writing i (integer >= 1) makes it head for waypoint i from its next follow_path on that path (past an open path's end: its last point; on a loop i wraps)
local agent = {}

---@alias steer.move_state "idle"|"waiting"|"moving"|"arrived"|"stuck"|"failed"

---Options of an order (agent:move_to, world:move_group).
---@class steer.move_opts
---@field nav? steer.navgrid     the grid to plan on; default world.nav
---@field stop_distance? number  arrived within this of the goal; default half the agent's radius
---@field speed? number          travel speed, > 0; default the agent's max_speed
---@field slowing? number        distance over which it slows down for the goal; default from its speed and max_force
---@field radius? number         planning radius; default the agent's (obstacle grids: their clearance, the most they plan for)
---@field stuck_time? number     seconds without progress along the route before a replan; default 2
---@field retries? integer       replans without progress before "stuck"; default 3

---Options of a group order.
---@class steer.group_opts: steer.move_opts
---@field spacing? number        between slots; default 2.5 x the largest member radius
---@field pattern? "block"|"line"|"column" default "block"
---@field facing? steer.point    the block's front; default from the members' centre to the goal

---(extension) Orders the agent to goal: its path joins the world's path
---queue (it holds still, "waiting"), then it follows the path (ORCA, walls
---and contacts as it has them), arrives within stop_distance and rests
---there; brain.arrived(self, agent) then, or brain.move_failed(self,
---agent, reason) ("no route", "goal blocked", "start blocked", "outside the
---world", "radius too large", "out of memory", "stuck"). A new order
---replaces the old one.
---@param goal steer.point
---@param opts? steer.move_opts
function agent:move_to(goal, opts) end

---(extension) A message and its delivery (API.md "Messages").
---@class steer.message
---@field kind string
---@field data any
---@field from? steer.agent the sender, for agent:send
---@field sent integer world.tick when sent
---@field delivered integer world.tick when delivered

---(extension) Senses for agent:perceive.
---@class steer.senses
---@field sight? { range: number, fov?: number } range >= 0; fov in radians, > 0, default 2*pi (all around), centred on the heading
---@field hearing? { range: number } range >= 0
---@field tag? string only agents with this tag are seen
---@field memory? number seconds a memory takes to fade from confidence 1 to 0; > 0, default 5

---(extension) One thing perceived.
---@class steer.percept
---@field agent? steer.agent what was seen, or the noise's source
---@field position steer.vec2
---@field distance number
---@field sense "sight"|"hearing"
---@field data? any the noise's data

---(extension) One memory of a perceived agent.
---@class steer.memory
---@field agent steer.agent
---@field position steer.vec2 where it was last sensed
---@field time number world.time then
---@field tick integer world.tick then
---@field age number seconds since
---@field confidence number 1 - age / memory, in (0, 1]
---@field sense "sight"|"hearing" how it was last sensed

---(extension) What the agent perceives now: the agents it sees (within
---sight range and fov, with a clear line of sight against obstacles and
---walls to the target's centre or either side of it), nearest first, ties
---in spawn order; then the noises it hears, in the order made. Updates its
---memories (8 at most; a new one replaces the weakest).
---@param senses steer.senses
---@return steer.percept[]
function agent:perceive(senses) end

---(extension) Its memories, strongest first (then newest, then spawn
---order), or the one of `target` (nil when none). Faded memories and those
---of removed agents are gone.
---@param target? steer.agent
---@return steer.memory[]|steer.memory|nil
function agent:memory(target) end

---(extension) Forgets its memory of target, or all of them.
---@param target? steer.agent
function agent:forget(target) end

---(extension) world:send with msg.from set to this agent.
---@param to steer.agent|steer.agent[]|string
---@param kind string
---@param data any
---@param delay? number
---@return integer recipients
function agent:send(to, kind, data, delay) end

---(extension) Cancels the agent's order ("idle"); its behaviours are its own again.
function agent:stop_moving() end

---(extension) The agent's route (empty without one) and the index of the
---waypoint it heads for.
---@return steer.vec2[] points
---@return integer|nil next
function agent:move_route() end

-- Each behaviour method computes one force, adds weight (default 1) times it
-- to this step's accumulator, and returns the unweighted force.

---@param target steer.point|steer.agent
---@param weight? number
---@return steer.vec2
function agent:seek(target, weight) end

---@param target steer.point|steer.agent
---@param panic_radius? number zero force beyond it; default unlimited
---@param weight? number
---@return steer.vec2
function agent:flee(target, panic_radius, weight) end

---@param target steer.point|steer.agent
---@param slowing_radius? number default 100
---@param weight? number
---@param deceleration? steer.deceleration (extension) seed 000's ramp; default: the linear ramp inside slowing_radius
---@return steer.vec2
function agent:arrive(target, slowing_radius, weight, deceleration) end

---@param other steer.agent
---@param weight? number
---@return steer.vec2
function agent:pursue(other, weight) end

---@param other steer.agent
---@param threat_radius? number default unlimited
---@param weight? number
---@return steer.vec2
function agent:evade(other, threat_radius, weight) end

---@param other steer.agent
---@param weight? number
---@return steer.vec2
function agent:intercept(other, weight) end

---@param weight? number
---@return steer.vec2
function agent:wander(weight) end

---@param list steer.agent[] removed agents in it are skipped
---@param weight? number
---@return steer.vec2
function agent:separate(list, weight) end

---@param list steer.agent[]
---@param weight? number
---@return steer.vec2
function agent:align(list, weight) end

---@param list steer.agent[]
---@param weight? number
---@return steer.vec2
function agent:cohere(list, weight) end

---Neighbour query and the three rules, all in C.
---@param opts? steer.flock_opts
---@param weight? number overrides opts.weight
---@return steer.vec2
function agent:flock(opts, weight) end

---@param weight? number
---@return steer.vec2
function agent:avoid_obstacles(weight) end

---@param weight? number
---@return steer.vec2
function agent:avoid_walls(weight) end

---Steers back inside the world's rectangle, or inside rect = {x, y, w, h}
---(a table first: `a:contain({0, 0, 200, 100}, 2)`; a number first is the weight).
---@param rect? number[]|number
---@param weight? number
---@return steer.vec2
function agent:contain(rect, weight) end

---Predictive avoidance: steers away from the neighbour (within avoid_range,
---on the layers of avoid_mask) it would pass closest to soonest, if that
---pass is a collision within avoid_horizon. Like the other avoidances it
---may return up to 3 x max_force. No guarantee, but cheap and a force like
---any other; for crowds that must never overlap use avoidance = "orca".
---@param weight? number
---@return steer.vec2
function agent:avoid_agents(weight) end

---Follows the path: by waypoints (the default) or Reynolds' prediction
---(`{mode = "predict"}`). `a:follow_path(path, weight)` also works.
---@param path steer.path
---@param opts? steer.follow_path_opts|number options, or the weight
---@param weight? number overrides opts.weight
---@return steer.vec2
function agent:follow_path(path, opts, weight) end

---@param leader steer.agent
---@param offset steer.point in the leader's frame: x along its heading, y along its side
---@param weight? number
---@return steer.vec2
function agent:offset_pursue(leader, offset, weight) end

---@param a steer.agent
---@param b steer.agent
---@param weight? number
---@return steer.vec2
function agent:interpose(a, b, weight) end

---@param threat steer.agent
---@param weight? number
---@return steer.vec2
function agent:hide(threat, weight) end

---This step the facing turns toward target (by at most turn_rate x dt). No force.
---@param target steer.point|steer.agent
function agent:face(target) end

---This step the facing turns toward the velocity (the default; cancels a face). No force.
function agent:look_where_going() end

---gdx-ai's MatchVelocity: force (v - vel) x mass / time_to_target, within max_force.
---@param v steer.point|steer.agent a velocity, or an agent whose velocity to match
---@param time_to_target? number >= 0 s, default 0.1 (never less than one step)
---@param weight? number
---@return steer.vec2
function agent:match_velocity(v, time_to_target, weight) end

---Reynolds' leader following: arrive `distance` behind the leader at its
---velocity; inside the zone ahead of the leader, step sideways out of it.
---@param leader steer.agent
---@param opts? steer.follow_leader_opts|number options, or the weight
---@param weight? number
---@return steer.vec2
function agent:follow_leader(leader, opts, weight) end

---Reynolds' queueing: brake while another agent is in the short box ahead.
---@param opts? steer.queue_opts|number options, or the weight
---@param weight? number
---@return steer.vec2
function agent:queue(opts, weight) end

---Adds weight (default 1) times force to the accumulator.
---@param force steer.point
---@param weight? number (extension)
function agent:apply(force, weight) end

---(extension) Come to a standstill where it is: the force toward zero
---velocity, braking with max_force. Standing form {"stop"}.
---@param weight? number
---@return steer.vec2
function agent:stop(weight) end

---(extension) Wander in bouts: a share `rest` (0..1, default 0.4) of bouts of
---`bout` seconds (default 3) stood still, the others at a speed between
---`pace` (0..1, default 0.3) times max_speed and max_speed. Standing form
---{"graze", rest =, bout =, pace =}.
---@param opts? {rest?: number, bout?: number, pace?: number, weight?: number}
---@param weight? number
---@return steer.vec2
function agent:graze(opts, weight) end

---(extension) Where to draw the agent: alpha (0..1, default 1) of the way
---through its last step along its velocity (world:advance's alpha).
---@param alpha? number
---@return steer.vec2
function agent:render_pos(alpha) end

---(extension) The behaviour method `name` with the arguments after it
---(`a:steer("evade", h)` is `a:evade(h)`): the same force, accumulated the
---same way, but nothing is returned, so no vec2 is made for the collector.
---The call for thousands of brains, and for behaviours chosen by name.
---@param name steer.behavior_name any behaviour method: "seek", "evade", "wander", "separate", ...
---@param ... any that method's arguments
function agent:steer(name, ...) end

---(extension) `world:nearest(a, radius, tag)` around this agent, without
---reading `a.world` first.
---@param radius number >= 0
---@param tag? string
---@return steer.agent|nil agent
---@return number? distance
function agent:nearest(radius, tag) end

---(extension) `world:neighbors(a, radius, opts)` around this agent.
---@param radius number >= 0
---@param opts? steer.query_opts
---@return steer.agent[]
function agent:neighbors(radius, opts) end

---Down a flow field at max speed (slowing over the last cell before its goal).
---@param field steer.flowfield
---@param weight? number
---@return steer.vec2 force
function agent:follow_flow(field, weight) end

-- ---------------------------------------------------------------- formations

---@alias steer.formation_pattern "wedge"|"line"|"column"|"circle"|fun(i: integer, n: integer): (number|steer.vec2), number?

---@class steer.formation_def
---@field pattern? steer.formation_pattern default "wedge"; a function gives slot i of n as x, y or a vec2 (x ahead, y to the side)
---@field spacing? number        > 0 units between neighbouring slots, default 30
---@field leader? steer.agent    the anchor; else `anchor` and `heading`
---@field anchor? steer.point    default {0, 0}
---@field heading? steer.point   non-zero, default {1, 0}
---@field reassign_angle? number radians in [0, pi], default pi/2: reassign when the anchor turned this far
---@field slowing_radius? number > 0, default 60
---@field weight? number         of the members' force, default 1
---@field nav? steer.navgrid     (extension) slots kept on free space (pulled in along the line of sight from the anchor); a member that cannot see its slot makes for the anchor

---Slots in a pattern around a leader or an anchor; members assigned to
---slots by least total distance (exact up to 64 members, greedy beyond),
---again when members join, leave or die and when the anchor turns past
---reassign_angle. `#f` is the member count.
---@class steer.formation
---@field count integer                          read only
---@field leader steer.agent|nil                 nil: a fixed anchor; assigning a member raises
---@field pattern string|function                read only
---@field anchor steer.vec2|nil                  read only: the anchor's position now (nil before any agent)
---@field heading steer.vec2|nil                 read only: the anchor's heading now
local formation = {}

---@param def? steer.formation_def
---@return steer.formation
function steer.formation(def) end

---Adds a member and reassigns; false when it is the leader or a member already.
---@param a steer.agent
---@return boolean
function formation:add(a) end

---Removes a member and reassigns; false when it was not one.
---@param a steer.agent
---@return boolean
function formation:remove(a) end

---Once a step: drops removed members, reassigns if the anchor turned past
---reassign_angle, and adds to each member the force that brings it to its
---slot at the anchor's velocity. Call it from the leader's brain or scene.update.
function formation:update() end

---Assigns slots by least total distance now.
function formation:reassign() end

---@return steer.agent[] in the order they joined
function formation:members() end

---@param a steer.agent
---@return integer|nil slot number (1-based)
function formation:slot_of(a) end

---@param a steer.agent
---@return steer.vec2|nil the position of its slot now
function formation:slot(a) end

---@return steer.vec2[] every slot's position now, by slot number
function formation:slots() end

---A fixed anchor instead of a leader.
---@param pos steer.point
---@param heading? steer.point non-zero
function formation:set_anchor(pos, heading) end

-- ---------------------------------------------------------------- brains

---A brain module: a table of optional callbacks. `self` is the agent's own
---state table and survives reloads. A runtime error pauses the brain (the
---agent coasts) until its module reloads.
---@class steer.brain
---@field spawn? fun(self: table, agent: steer.agent)
---@field update? fun(self: table, agent: steer.agent, dt: number)
---@field draw? fun(self: table, agent: steer.agent, gfx: table)
---@field reload? fun(self: table, agent: steer.agent)
---@field arrived? fun(self: table, agent: steer.agent) (extension) its order arrived (start of the step after)
---@field move_failed? fun(self: table, agent: steer.agent, reason: string) (extension) its order failed: a nav reason or "stuck"
---@field message? fun(self: table, agent: steer.agent, msg: steer.message) (extension) a message (world:send, agent:send) reached it: at the start of a step, before the updates
---@field traverse_link? fun(self: table, agent: steer.agent, link: steer.nav_link) after a step in which the agent, following a navgrid path, reached the start of one of its off-mesh links: move it across (set agent.pos near link.to to teleport, or steer); without it the agent walks straight across

-- ---------------------------------------------------------------- module functions

---The pointer as a vec2 in world units; nil headless (the app replaces it).
---@return steer.vec2|nil
function steer.mouse() end

---What steer.reload did.
---@class steer.reload_report
---@field functions integer functions whose code changed
---@field unchanged integer functions paired with an old one of the same code
---@field added integer fields now holding a function only the new version has
---@field removed integer fields the new source no longer makes
---@field classes integer tables with an __index field whose functions changed
---@field values integer data values (fields, module locals) taken from the new source
---@field agents integer agents using the module as their brain
---@field first boolean the module was not loaded before
---@field changed boolean false: same code and values as before
---@field truncated boolean a graph was too big to merge whole

---(extension) Reloads module `name` from its file, resolved like require, and
---merges it into the loaded version in place (README "Hot reload": tables
---keep their identity, functions come from the new file with their upvalues
---joined to the old module variables, data changes only where the source
---changed it); resumes brains paused by errors and calls
---brain.reload(self, agent) for every agent using it. On a compile or load
---error the old code stays and the result is nil, "file:line: message".
---@param name string
---@return true|nil ok
---@return steer.reload_report|string report_or_message
function steer.reload(name) end

---A scene module's table, as the app reads it (API.md "scenes and the app").
---@class steer.scene
---@field config? table         width, height, edges, seed, title; (extension) dt, cell_size, contacts
---@field trace? string[]       (extension) self fields for --trace CSV columns and the plot panel (key G); dotted paths reach nested tables
---@field load? fun(world: steer.world, args: string[])
---@field update? fun(world: steer.world, dt: number)
---@field draw? fun(world: steer.world, gfx: table)
---@field mousepressed? fun(world: steer.world, x: number, y: number, button: integer)
---@field keypressed? fun(world: steer.world, key: string)

---(extension) Makes math.random (and math.randomseed) draw from `world`'s
---seeded stream exactly as the app does, so a stock-Lua host gets the app's
---numbers and checksums; math.randomseed then does nothing (the world's seed
---is the only seed). nil puts the stock functions back.
---@param world steer.world|nil
function steer.install_random(world) end

---(extension) A snapshot from a file written by snap:save; nil and a message
---for a missing, truncated, corrupt, foreign or newer-format file. Requires
---the brains' modules. Disabled in the app's sandbox.
---@param path string
---@return steer.snapshot|nil snap
---@return string|nil message
function steer.load_snapshot(path) end

---(extension) A snapshot from the bytes snap:encode made; nil and a message
---otherwise.
---@param bytes string
---@return steer.snapshot|nil snap
---@return string|nil message
function steer.decode_snapshot(bytes) end

return steer
