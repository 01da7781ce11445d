-- ffi.lua — steer's FFI backend under LuaJIT, compiled into steer.so and run
-- by luaopen_steer (bindings/ffi_api.c) unless STEER_FFI=0.
--
-- It leaves the C binding in place and puts, in front of its hot entries,
-- Lua functions that LuaJIT can compile, which call ffi_api.c's checked C
-- entry points directly (no classic C API call, so no trace aborts there):
--
--   agent.world                 the agent's world, from the agent's payload
--   agent:render_pos([alpha]), as an FFI vec2
--   world:nearest(agent or point, r [, tag]) and agent:nearest(r [, tag])
--   world:neighbors(agent or point, r [, opts]), agent:neighbors(r [, opts])
--   the agent fields' reads, and the writes of pos, vel, max_speed,
--   max_force, mass, radius and tag
--   seek, flee, pursue, evade, intercept with an agent as the target, and
--   wander, stop: inside a step, their force as an FFI vec2 (a struct the
--   JIT need not allocate when the brain drops it)
--   steer.vec2(x, y), steer.vec2.from_angle and the vec2 methods, computed
--   by ffi_vec2.c
--
-- Whatever those fast paths do not take (another form, a bad argument, a
-- removed agent, a call outside the step) goes to the C binding's own
-- function, so the results and the errors are the C backend's. The FFI vec2
-- has the methods and operators of steer.vec2, and the bindings take it
-- wherever they take a steer.vec2 (sl_ffi_tovec2).
local steer, cx = ...
local okffi, ffi = pcall(require, "ffi")
if not okffi or type(rawget(_G, "jit")) ~= "table" then return false end

local getmetatable, type, select, tonumber, pcall, error = getmetatable, type, select, tonumber, pcall, error
local getinfo = type(debug) == "table" and debug.getinfo or nil
local getupvalue = type(debug) == "table" and debug.getupvalue or nil

-- One set of ctypes per Lua state: a second require of steer (after
-- package.loaded.steer = nil) reuses them, since a ctype's metatype is set
-- once. Its method table is refilled from the new binding.
local shared = package.loaded["steer.ffi.types"]
if type(shared) ~= "table" then
  ffi.cdef [[
    typedef struct steer_vec2 { const double x, y; } steer_vec2;
    typedef struct steer_ffi_id { uint32_t index, generation; } steer_ffi_id;
    typedef struct steer_ffi_hit { uint32_t index, generation; uint32_t epoch, known; double dist; } steer_ffi_hit;
  ]]
  shared = { vec2_mt = {} }
  shared.vec2 = ffi.metatype("steer_vec2", shared.vec2_mt)
  package.loaded["steer.ffi.types"] = shared
end
local V2 = shared.vec2
local cast = ffi.cast
-- Userdata go to the entry points as ffi.cast(vp, ud), cast at each call:
-- the JIT compiles that (not a userdata passed for a void * as is), and a
-- cast used at once is never allocated.
local vp = ffi.typeof("void *")

local C = {
  nearest = cast("int (*)(void *, void *, double, int32_t, steer_ffi_hit *)", cx.nearest),
  nearest_at = cast("int (*)(void *, const double *, double, int32_t, steer_ffi_hit *)", cx.nearest_at),
  neighbors = cast("int (*)(void *, void *, const double *, double, int32_t, const double *, double, unsigned,"
                   .. " steer_ffi_id *, int)", cx.neighbors),
  agent_is = cast("int (*)(void *, uint32_t, uint32_t)", cx.agent_is),
  agent_world = cast("double (*)(void *)", cx.agent_world),
  world_key = cast("double (*)(void *)", cx.world_key),
  world_epoch = cast("uint32_t (*)(void *)", cx.world_epoch),
  steer = cast("int (*)(void *, int, void *, double, double, unsigned, double *)", cx.steer),
  steer_hit = cast("int (*)(void *, int, void *, const steer_ffi_hit *, double, double, unsigned, double *)",
                   cx.steer_hit),
  render_pos = cast("int (*)(void *, double, int, double *)", cx.render_pos),
  field = cast("int (*)(void *, int, double *)", cx.field),
  set_field = cast("int (*)(void *, int, double, double)", cx.set_field),
  vec2_op = cast("int (*)(int, double, double, double, double, double, double *)", cx.vec2_op),
  brain_next = cast("double (*)(void *, double *)", cx.brain_next),
  brain_due = cast("double (*)(void *, void *)", cx.brain_due),
  brain_begin = cast("void (*)(void *, void *)", cx.brain_begin),
  brain_end = cast("void (*)(void *)", cx.brain_end),
}
-- Each entry point in a local of its own: an upvalue never assigned again,
-- which the JIT folds to a constant (a field of C would be looked up and
-- its type checked at every call).
local C_agent_is = C.agent_is
local C_agent_world = C.agent_world
local C_brain_begin = C.brain_begin
local C_brain_due = C.brain_due
local C_brain_end = C.brain_end
local C_brain_next = C.brain_next
local C_field = C.field
local C_nearest = C.nearest
local C_nearest_at = C.nearest_at
local C_neighbors = C.neighbors
local C_render_pos = C.render_pos
local C_set_field = C.set_field
local C_steer = C.steer
local C_steer_hit = C.steer_hit
local C_vec2_op = C.vec2_op
local C_world_epoch = C.world_epoch
local C_world_key = C.world_key
local hit = ffi.new("steer_ffi_hit")
local force = ffi.new("double[2]")

-- ---- the FFI vec2: steer.vec2's methods and operators ----

local vmt = cx.vec2_mt
local vmeta = shared.vec2_mt
for k in pairs(vmeta) do vmeta[k] = nil end
vmeta.__tostring = vmt.__tostring
vmeta.__newindex = vmt.__newindex -- v.z = 1 (x and y are const fields: LuaJIT's own error)
local methods = getupvalue and select(2, getupvalue(vmt.__index, 1)) or nil
if type(methods) ~= "table" then return false end
-- (__index: the FFI methods, below)
vmeta.__metatable = vmt.__metatable
local istype = ffi.istype
local function isvec2(v) return istype(V2, v) end

-- Arithmetic of two FFI vec2s (or one and a number) stays on trace: the
-- componentwise IEEE operations of vec2.c's (steer.h's st_v2_add, ...;
-- the core is built with -ffp-contract=off, and LuaJIT fuses nothing), so
-- the same bits. Anything else (a steer.vec2 or a point table as the other
-- operand, a result that is not finite, a bad operand) goes to vec2.c's
-- own metamethod, which answers or raises as with the C backend.
-- (x - x == 0: x is finite.)
do
  local c_add, c_sub, c_mul, c_div, c_unm, c_eq = vmt.__add, vmt.__sub, vmt.__mul, vmt.__div, vmt.__unm, vmt.__eq
  vmeta.__add = function(p, q)
    if istype(V2, p) and istype(V2, q) then
      local x, y = p.x + q.x, p.y + q.y
      if x - x == 0 and y - y == 0 then return V2(x, y) end
    end
    return c_add(p, q)
  end
  vmeta.__sub = function(p, q)
    if istype(V2, p) and istype(V2, q) then
      local x, y = p.x - q.x, p.y - q.y
      if x - x == 0 and y - y == 0 then return V2(x, y) end
    end
    return c_sub(p, q)
  end
  vmeta.__mul = function(p, q)
    if istype(V2, p) and type(q) == "number" then
      local x, y = p.x * q, p.y * q
      if x - x == 0 and y - y == 0 then return V2(x, y) end
    elseif type(p) == "number" and istype(V2, q) then
      local x, y = q.x * p, q.y * p
      if x - x == 0 and y - y == 0 then return V2(x, y) end
    end
    return c_mul(p, q)
  end
  vmeta.__div = function(p, q)
    if istype(V2, p) and type(q) == "number" then
      local x, y = p.x / q, p.y / q
      if x - x == 0 and y - y == 0 then return V2(x, y) end
    end
    return c_div(p, q)
  end
  vmeta.__unm = function(p, q)
    if istype(V2, p) then return V2(-p.x, -p.y) end
    return c_unm(p, q)
  end
  vmeta.__eq = function(p, q)
    if istype(V2, p) and istype(V2, q) then return p.x == q.x and p.y == q.y end
    return c_eq(p, q)
  end
end

-- ---- errors: the C binding's, as if it had been called directly ----

-- LuaJIT names the function of a "bad argument" from its caller; called
-- through pcall, the C function is '?'. The message is rebuilt from how the
-- wrapper was called (a method call counts self out, as lj_err_argmsg does)
-- and raised at the wrapper's caller. Any other message of the C function
-- (luaL_error's, which names where it was called from: pcall here) gets the
-- position of the wrapper's caller, as it would have called the C function
-- itself. depth: the wrapper's level as seen from here (2: it called
-- reraise itself, 3: through slow1 or slow2).
local function reraise(msg, depth)
  depth = depth or 3
  if type(msg) == "string" and getinfo then
    local n, rest = msg:match("^bad argument #(%d+) to '%?' (.*)$")
    if n then
      local ar = getinfo(depth, "n")
      local name = ar and ar.name or "?"
      n = tonumber(n)
      if ar and ar.namewhat == "method" then
        n = n - 1
        if n == 0 then error(("calling '%s' on bad self %s"):format(name, rest), depth + 1) end
      end
      error(("bad argument #%d to '%s' %s"):format(n, name, rest), depth + 1)
    end
    if not msg:find("^[^\n]-:%d+: ") then error(msg, depth + 1) end
  end
  error(msg, 0)
end

-- The C binding's answer (one result, or two: nearest's).
local function slow1(f, ...)
  local ok, r = pcall(f, ...)
  if not ok then reraise(r) end
  return r
end

local function slow2(f, ...)
  local ok, r, d = pcall(f, ...)
  if not ok then reraise(r) end
  if r == nil then return nil end
  return r, d
end

-- ---- the FFI vec2's methods and steer.vec2's constructors ----

-- Each method computes in C (ffi_vec2.c: the core call vec2.c's method
-- makes, the same checks), so the same bits: its result is a number or an
-- FFI vec2. Another operand than an FFI vec2 (a point table, a steer.vec2
-- userdata), a bad argument or a result vec2.c raises on goes to vec2.c's
-- own method, which answers or raises as with the C backend.
local V2OP = cx.vec2_ops
local vout = ffi.new("double[2]")
local vmethods = {} -- the FFI vec2's __index: vec2.c's methods, then these
for k, f in pairs(methods) do vmethods[k] = f end
vmeta.__index = vmethods

-- the answer of C_vec2_op (k: its return), else nil
local function v2_answer(k)
  if k == 1 then return vout[0] end
  if k == 2 then return V2(vout[0], vout[1]) end
  return nil
end

-- v:len(), v:len2(), v:angle(), v:normalized()
local function v2_unary(name)
  local op, c_fn = V2OP[name], methods[name]
  return function(v, ...)
    if istype(V2, v) then
      local r = v2_answer(C_vec2_op(op, v.x, v.y, 0, 0, 0, vout))
      if r ~= nil then return r end
    end
    local r = slow1(c_fn, v, ...) -- not a tail call: reraise reads this frame
    return r
  end
end

-- v:dot(b), v:cross(b), v:dist(b), v:dist2(b), v:lerp(b, t)
local function v2_binary(name, with_t)
  local op, c_fn = V2OP[name], methods[name]
  return function(v, ...)
    local b, t = ...
    if istype(V2, v) and istype(V2, b) and (not with_t or type(t) == "number") then
      local r = v2_answer(C_vec2_op(op, v.x, v.y, b.x, b.y, with_t and t or 0, vout))
      if r ~= nil then return r end
    end
    local r = slow1(c_fn, v, ...) -- not a tail call: reraise reads this frame
    return r
  end
end

-- v:rotated(rad), v:truncated(max)
local function v2_scalar(name)
  local op, c_fn = V2OP[name], methods[name]
  return function(v, ...)
    local t = ...
    if istype(V2, v) and type(t) == "number" then
      local r = v2_answer(C_vec2_op(op, v.x, v.y, 0, 0, t, vout))
      if r ~= nil then return r end
    end
    local r = slow1(c_fn, v, ...) -- not a tail call: reraise reads this frame
    return r
  end
end

for _, k in ipairs { "len", "len2", "angle", "normalized" } do vmethods[k] = v2_unary(k) end
for _, k in ipairs { "dot", "cross", "dist", "dist2" } do vmethods[k] = v2_binary(k, false) end
vmethods.lerp = v2_binary("lerp", true)
vmethods.rotated, vmethods.truncated = v2_scalar("rotated"), v2_scalar("truncated")
do
  -- (-y, x) and the two numbers: no arithmetic, the same values as vec2.c's
  local c_perp, c_unpack = methods.perp, methods.unpack
  vmethods.perp = function(v, ...)
    if istype(V2, v) then return V2(-v.y, v.x) end
    local r = slow1(c_perp, v, ...)
    return r
  end
  vmethods.unpack = function(v, ...)
    if istype(V2, v) then return v.x, v.y end
    local ok, x, y = pcall(c_unpack, v, ...)
    if not ok then reraise(x, 2) end
    return x, y
  end
end

-- steer.vec2(x, y) and steer.vec2.from_angle(rad [, len]) make FFI vec2s
do
  local vt = steer.vec2
  local getmt = type(debug) == "table" and debug.getmetatable or nil
  local vtmt = getmt and getmt(vt)
  if type(vtmt) ~= "table" or type(vtmt.__call) ~= "function" then return false end
  local c_call, c_from = vtmt.__call, vt.from_angle
  vtmt.__call = function(self, ...)
    local x, y = ...
    if type(x) == "number" and type(y) == "number" and x - x == 0 and y - y == 0 then return V2(x, y) end
    local v = slow1(c_call, self, ...) -- raises: its texts name 'vec2' and the user's numbers
    return v
  end
  local FROM_ANGLE = V2OP.from_angle
  vt.from_angle = function(...)
    local rad, len = ...
    if type(rad) == "number" and (len == nil or type(len) == "number") then
      local r = v2_answer(C_vec2_op(FROM_ANGLE, rad, len or 1, 0, 0, 0, vout))
      if r ~= nil then return r end
    end
    local v = slow1(c_from, ...) -- not a tail call: reraise reads this frame
    return v
  end
end

-- ---- worlds ----

local VIEW = cx.agent_mt.__metatable -- what getmetatable gives for an agent
local worlds = setmetatable({}, { __mode = "v" }) -- world key (C.world_key) -> world
-- world -> its world_state. Weak both ways: a state holds the world's
-- agents, which hold the world (LuaJIT's weak keys are no ephemerons); the
-- world's own nearest keeps its state alive as long as the world lives.
local states = setmetatable({}, { __mode = "kv" })

-- The world of a live agent (the C side gives its key), or nil; the last
-- one answered is kept by its key: brains ask for their own world thousands
-- of times a step (weak: it never keeps a world).
local last_key, last_world = false, setmetatable({}, { __mode = "v" })
local function agent_world(a)
  local key = C_agent_world(cast(vp, a))
  local w
  if key == last_key then w = last_world[1] end
  if w == nil then
    w = worlds[key]
    last_key, last_world[1] = key, w
  end
  return w
end

-- Per world: its payload and its agents and tags tables (uservalues, made
-- anew by a restore, which raises the world's epoch).
local function world_state(w)
  local uv = cx.uservalues(w)
  local p = cast(vp, w)
  return { p = p, key = C_world_key(p), epoch = C_world_epoch(p), agents = uv[cx.WUV_AGENTS], tags = uv[cx.WUV_TAGS] }
end

local function refresh(w, s)
  local f = world_state(w)
  s.epoch, s.agents, s.tags = f.epoch, f.agents, f.tags
  s.owners = nil -- the brain loop's caches (a restore gives agents new selves)
end

-- The tag id of name in world s, or nil (not a string, or never interned:
-- the C binding answers those).
local function tag_id(s, tag)
  if tag == nil then return cx.TAG_ANY end
  if type(tag) ~= "string" then return nil end
  local id = s.tags[tag]
  if type(id) ~= "number" then return nil end
  return id
end

-- The agent userdata of a hit, or false when the cached tables are stale.
-- A known hit (the C side's table of slots says the agents table holds it,
-- live) is returned unread: reading it would be a cache miss an answer.
local function hit_agent(w, s)
  if hit.epoch ~= s.epoch then refresh(w, s) end
  local o = s.agents[hit.index + 1]
  if o ~= nil and (hit.known ~= 0 or C_agent_is(cast(vp, o), hit.index, hit.generation) ~= 0) then return o end
  return false
end

-- The last agent an FFI nearest returned, and its world's payload (hit
-- holds its handle): a behaviour toward it (pursue the nearest prey) names
-- it by that handle and never reads its userdata (C.steer_hit).
-- NOHIT: none (a value no brain can pass as a target).
local NOHIT = {}
local hit_o, hit_p = NOHIT, false

-- The nearest agent to a (an agent, or with `point` the point in
-- near_centre) within r with the tag, by the FFI query, and its distance;
-- nil when there is none; false when the C binding must answer (an unknown
-- tag, a hit the caches do not hold, a point that is not finite).
local near_centre = ffi.new("double[2]")
local function ffi_nearest(w, s, a, r, tag, point)
  local id = tag_id(s, tag)
  if not id then return false end
  local k
  if point then k = C_nearest_at(s.p, near_centre, r, id, hit) else k = C_nearest(s.p, cast(vp, a), r, id, hit) end
  if k == 0 then return nil end
  if k == 1 then
    local o = hit_agent(w, s)
    if o then
      hit_o, hit_p = o, s.p
      return o, hit.dist
    end
    hit_o = NOHIT -- hit now holds another handle than hit_o's
  end
  return false
end

-- The agents around the centre c (an agent, or an FFI vec2 point) within r,
-- with opts' tag, fov and heading, nearest first, by the FFI query: a new
-- array, or false when the C binding must answer (options it checks or
-- reads by itself: a point table, a steer.vec2 userdata, opts with a
-- metatable; an unknown tag; an agent the C side does not know in its slot).
local ids_cap = 64
local ids = ffi.new("steer_ffi_id[?]", ids_cap)
local okn, new_table = pcall(require, "table.new")
if not okn then new_table = function() return {} end end
local NB_POINT, NB_HEADING, NB_FOV = 1, 2, 4
local nb_centre, nb_heading = ffi.new("double[2]"), ffi.new("double[2]")

local function neighbors_query(s, c, point, r, id, fov, flags)
  if point then return C_neighbors(s.p, nil, nb_centre, r, id, nb_heading, fov, flags, ids, ids_cap) end
  return C_neighbors(s.p, cast(vp, c), nb_centre, r, id, nb_heading, fov, flags, ids, ids_cap)
end

local function ffi_neighbors(w, s, c, r, opts)
  local tag, fov, flags = nil, 0, 0
  local point = istype(V2, c)
  if point then
    nb_centre[0], nb_centre[1] = c.x, c.y
    flags = NB_POINT
  end
  if opts ~= nil then
    if type(opts) ~= "table" or getmetatable(opts) ~= nil then return false end
    tag = opts.tag
    local h, f = opts.heading, opts.fov
    if h ~= nil then
      if not istype(V2, h) then return false end
      nb_heading[0], nb_heading[1] = h.x, h.y
      flags = flags + NB_HEADING
    end
    if f ~= nil then
      if type(f) ~= "number" then return false end
      fov, flags = f, flags + NB_FOV
    end
  end
  local id = tag_id(s, tag)
  if not id then return false end
  local n = neighbors_query(s, c, point, r, id, fov, flags)
  if n > ids_cap then
    while ids_cap < n do ids_cap = ids_cap * 2 end
    ids = ffi.new("steer_ffi_id[?]", ids_cap)
    n = neighbors_query(s, c, point, r, id, fov, flags)
  end
  if n < 0 then return false end
  if C_world_epoch(s.p) ~= s.epoch then refresh(w, s) end
  local agents, out = s.agents, new_table(n, 0)
  for i = 0, n - 1 do out[i + 1] = agents[ids[i].index + 1] end
  return out
end

local function install_world(w)
  local s = world_state(w)
  worlds[s.key] = w
  local c_nearest = cx.world_nearest
  local function nearest(self, ...)
    local a, r, tag = ...
    if self == w and type(r) == "number" then
      local o, d = false, nil -- false: the C binding answers
      if getmetatable(a) == VIEW then
        o, d = ffi_nearest(w, s, a, r, tag)
      elseif istype(V2, a) then
        near_centre[0], near_centre[1] = a.x, a.y
        o, d = ffi_nearest(w, s, nil, r, tag, true)
      end
      if o then return o, d end
      if o == nil then return nil end
    end
    local o, d = slow2(c_nearest, self, ...) -- not a tail call: reraise reads this frame
    if o == nil then return nil end
    return o, d
  end
  local c_neighbors = cx.world_neighbors
  local function neighbors(self, ...)
    local a, r, opts = ...
    if self == w and (getmetatable(a) == VIEW or istype(V2, a)) and type(r) == "number" then
      local t = ffi_neighbors(w, s, a, r, opts)
      if t then return t end
    end
    local t = slow1(c_neighbors, self, ...) -- not a tail call: reraise reads this frame
    return t
  end
  local index = cx.world_index(w) -- getmetatable(w) is protected
  index.nearest, index.neighbors = nearest, neighbors
  return s
end

-- The name of the tag id t in a's world, or nil (the C binding answers).
local function tag_name(a, t)
  local w = agent_world(a)
  local s = w and states[w]
  if s == nil then return nil end
  if C_world_epoch(s.p) ~= s.epoch then refresh(w, s) end
  local name = s.tags[t]
  if type(name) == "string" then return name end
  return nil
end

-- The id of the tag name in a's world when the world knows it, else nil
-- (a new name is interned by the C binding).
local function tag_of(a, name)
  if type(name) ~= "string" then return nil end
  local w = agent_world(a)
  local s = w and states[w]
  if s == nil then return nil end
  if C_world_epoch(s.p) ~= s.epoch then refresh(w, s) end
  local id = s.tags[name]
  if type(id) == "number" then return id end
  return nil
end

-- ---- agents ----

local amt = cx.agent_mt
local c_index = amt.__index
local c_agent = {} -- the C binding's methods, by name
for k, f in pairs(steer.agent) do c_agent[k] = f end
local fast = {} -- name -> FFI method

-- agent:nearest(r [, tag]): world:nearest around it
do
  local c_nearest = c_agent.nearest
  fast.nearest = function(a, ...)
    local r, tag = ...
    if getmetatable(a) == VIEW and type(r) == "number" then
      local w = agent_world(a)
      local s = w and states[w]
      if s then
        local o, d = ffi_nearest(w, s, a, r, tag)
        if o then return o, d end
        if o == nil then return nil end
      end
    end
    local o, d = slow2(c_nearest, a, ...) -- not a tail call: reraise reads this frame
    if o == nil then return nil end
    return o, d
  end
end

-- agent:neighbors(r [, opts]): world:neighbors around it
do
  local c_neighbors = c_agent.neighbors
  fast.neighbors = function(a, ...)
    local r, opts = ...
    if getmetatable(a) == VIEW and type(r) == "number" then
      local w = agent_world(a)
      local s = w and states[w]
      if s then
        local t = ffi_neighbors(w, s, a, r, opts)
        if t then return t end
      end
    end
    local t = slow1(c_neighbors, a, ...) -- not a tail call: reraise reads this frame
    return t
  end
end

local TARGET, RADIUS, WEIGHT = 1, 2, 4

-- The force of agent a's behaviour toward the agent t into `force`: true,
-- or false for the C binding to answer. The last nearest answer goes by its
-- handle; any other target is checked as an agent userdata and read.
local function steer_to(a, kind, t, r, wt, flags)
  if t == hit_o and C_steer_hit(cast(vp, a), kind, hit_p, hit, r, wt, flags, force) == 0 then return true end
  return getmetatable(t) == VIEW and C_steer(cast(vp, a), kind, cast(vp, t), r, wt, flags, force) == 0
end

-- A behaviour taking (target, weight): seek, pursue, intercept.
local function target_weight(name, kind)
  local c_fn = c_agent[name]
  return function(a, ...)
    local t, wt = ...
    if getmetatable(a) == VIEW then
      local flags = TARGET
      if wt ~= nil then flags = type(wt) == "number" and flags + WEIGHT or -1 end
      if flags >= 0 and steer_to(a, kind, t, 0, wt or 1, flags) then return V2(force[0], force[1]) end
    end
    local f = slow1(c_fn, a, ...) -- not a tail call: reraise reads this frame
    return f
  end
end

-- A behaviour taking (target, radius, weight): flee, evade.
local function target_radius_weight(name, kind)
  local c_fn = c_agent[name]
  return function(a, ...)
    local t, r, wt = ...
    if getmetatable(a) == VIEW then
      local flags = TARGET
      if r ~= nil then flags = type(r) == "number" and flags + RADIUS or -1 end
      if wt ~= nil and flags >= 0 then flags = type(wt) == "number" and flags + WEIGHT or -1 end
      if flags >= 0 and steer_to(a, kind, t, r or 0, wt or 1, flags) then return V2(force[0], force[1]) end
    end
    local f = slow1(c_fn, a, ...) -- not a tail call: reraise reads this frame
    return f
  end
end

-- A behaviour taking (weight): wander, stop.
local function weight_only(name, kind)
  local c_fn = c_agent[name]
  return function(a, ...)
    local wt = ...
    if getmetatable(a) == VIEW then
      local flags = 0
      if wt ~= nil then flags = type(wt) == "number" and WEIGHT or -1 end
      if flags >= 0 and C_steer(cast(vp, a), kind, nil, 0, wt or 1, flags, force) == 0 then
        return V2(force[0], force[1])
      end
    end
    local f = slow1(c_fn, a, ...) -- not a tail call: reraise reads this frame
    return f
  end
end

fast.seek = target_weight("seek", cx.SEEK)
fast.pursue = target_weight("pursue", cx.PURSUE)
fast.intercept = target_weight("intercept", cx.INTERCEPT)
fast.flee = target_radius_weight("flee", cx.FLEE)
fast.evade = target_radius_weight("evade", cx.EVADE)
fast.wander = weight_only("wander", cx.WANDER)
fast.stop = weight_only("stop", cx.STOP)

-- agent:render_pos([alpha])
do
  local c_fn = c_agent.render_pos
  fast.render_pos = function(a, ...)
    local alpha = ...
    if getmetatable(a) == VIEW and (alpha == nil or type(alpha) == "number")
        and C_render_pos(cast(vp, a), alpha or 1, alpha and 1 or 0, force) == 0 then
      return V2(force[0], force[1])
    end
    local f = slow1(c_fn, a, ...) -- not a tail call: reraise reads this frame
    return f
  end
end

-- agent.world from the agent's payload; methods from `fast`; the rest from
-- the C binding's __index.
local c_names = getupvalue and select(2, getupvalue(c_index, 1)) or nil
if type(c_names) ~= "table" then return false end
local FIELD = cx.fields -- name -> C.field's code
amt.__index = function(a, k)
  -- c_names stays this closure's first upvalue, where introspection (and
  -- tests/spec/meta_spec.lua) reads the names an agent answers
  if c_names[k] == nil then return c_index(a, k) end
  if k == "world" then -- a constant in a trace: the test is folded away
    if getmetatable(a) == VIEW then
      local w = agent_world(a)
      if w then return w end
    end
    return c_index(a, k)
  end
  local f = fast[k]
  if f ~= nil then return f end
  local code = FIELD[k]
  if code ~= nil and getmetatable(a) == VIEW then
    local kind = C_field(cast(vp, a), code, force)
    if kind == 2 then return V2(force[0], force[1]) end
    if kind == 1 then return force[0] end
    if kind == 3 then return force[0] ~= 0 end
    if kind == 4 then
      local t = force[0]
      if t == 0 then return nil end -- no tag
      local name = tag_name(a, t)
      if name ~= nil then return name end
    end
  end
  return c_index(a, k)
end

-- a.pos, a.vel (an FFI vec2), a.max_speed, a.max_force, a.mass, a.radius
-- (a number) and a.tag (nil or a tag the world knows) = value by the FFI
-- (ffi_api.c's ffi_set_field, agent.c's checks); any other field or value
-- (a point table, a new tag, a bad value, a removed agent) goes to the C
-- binding's __newindex, which assigns or raises as with the C backend.
local c_newindex = amt.__newindex
local F_POS, F_VEL, F_TAG = FIELD.pos, FIELD.vel, FIELD.tag
local SETTABLE = {}
for _, k in ipairs { "pos", "vel", "max_speed", "max_force", "mass", "radius", "tag" } do SETTABLE[k] = FIELD[k] end

local function set_field(a, code, v)
  if code == F_POS or code == F_VEL then
    return istype(V2, v) and C_set_field(cast(vp, a), code, v.x, v.y) == 0
  end
  if code == F_TAG then
    local id = v == nil and 0 or tag_of(a, v)
    return id ~= nil and C_set_field(cast(vp, a), code, id, 0) == 0
  end
  return type(v) == "number" and C_set_field(cast(vp, a), code, v, 0) == 0
end

amt.__newindex = function(a, k, v)
  local code = SETTABLE[k]
  if code ~= nil and getmetatable(a) == VIEW and set_field(a, code, v) then return end
  local ok, err = pcall(c_newindex, a, k, v)
  if not ok then reraise(err, 2) end
end
-- steer.agent: every method as a plain function, the very objects a.evade
-- gives (docs/API.md)
for k, f in pairs(fast) do steer.agent[k] = f end

-- ---- the brain loop ----

-- world:step's brain pass (brain.c's run_brains, its bookkeeping in C):
-- every agent with a brain in spawn order, update(self, agent, dt), so that
-- one trace runs through many agents' updates. An error unwinds to the C
-- side, which pauses that brain, routes the error and calls this again for
-- the agents after it. rp: the pass (a brain_run, opaque here).
-- Each agent's brain table and self table, by its slot in the agents
-- table, with the agent they belong to: the loop walks the slots in spawn
-- order, so these are read in order, where the agent's own uservalue table
-- would be a cache miss an agent (a hash keyed by agent, a random read
-- each). An agent's brain and self are set at spawn (self made on first
-- need) and change only with a restore, which raises the world's epoch
-- (refresh drops these) or a removal (the agent then never runs again; its
-- slot's next agent is another owner). Weak values: a removed agent goes
-- with its world's other references, whatever these hold.
local function slot_tables(s)
  s.owners = setmetatable({}, { __mode = "v" })
  s.brains = setmetatable({}, { __mode = "v" })
  s.selves = setmetatable({}, { __mode = "v" })
end
local AUV_SELF, AUV_BRAIN = cx.AUV_SELF, cx.AUV_BRAIN
local uservalues, brain_update, make_self = cx.uservalues, cx.brain_update, cx.self

local dtbuf = ffi.new("double[1]")

local function run_brains(w, rp)
  local r = cast(vp, rp)
  local s = states[w]
  if s == nil then s = install_world(w); states[w] = s end
  if C_world_epoch(s.p) ~= s.epoch then refresh(w, s) end
  if s.owners == nil then slot_tables(s) end
  local agents, owners, brains, selves = s.agents, s.owners, s.brains, s.selves
  while true do
    -- the next agent due this step (a.think_every), with the time since its
    -- last update; a negative slot: the C side could not tell (slots.h), so
    -- the userdata found there is asked
    local slot = C_brain_next(r, dtbuf)
    if slot == 0 then break end
    local a, adt
    if slot > 0 then
      a, adt = rawget(agents, slot), dtbuf[0]
    else
      slot = -slot
      a = rawget(agents, slot)
      adt = type(a) == "userdata" and C_brain_due(r, cast(vp, a)) or -1
    end
    if adt >= 0 then
      if owners[slot] ~= a then
        local env = uservalues(a)
        owners[slot], brains[slot], selves[slot] = a, env and env[AUV_BRAIN], env and env[AUV_SELF]
      end
      local b = brains[slot]
      if type(b) == "table" then
        local up = rawget(b, "update")
        if up == nil and getmetatable(b) ~= nil then up = brain_update(a) end
        if type(up) == "function" then
          local self = selves[slot]
          if type(self) ~= "table" then
            self = make_self(a)
            selves[slot] = self
          end
          C_brain_begin(r, cast(vp, a)) -- cast again: a cdata kept in a local would be allocated
          up(self, a, adt)
          C_brain_end(r)
        end
      end
    end
  end
end

cx.set_hooks(function(w) states[w] = install_world(w) end, isvec2, run_brains)
return true
