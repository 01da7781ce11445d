-- LuaJIT's FFI backend (API.md, "Lua versions", "LuaJIT's FFI backend"):
-- steer.backend, and the promise that the FFI paths give the C backend's
-- results bit for bit and its errors. On the other Luas (and on LuaJIT with
-- STEER_FFI=0) the same specs run the C backend: they hold there too.
local steer = require "steer"

local jit = rawget(_G, "jit")
local ffi_expected = jit ~= nil and os.getenv("STEER_FFI") ~= "0"

-- Hunters and prey in a wrap world. form "plain": the methods the FFI
-- backend takes (agent.world:nearest, a:pursue, a:evade, a:wander, ...);
-- "steer": the same behaviours through a:steer(name, ...), which the
-- backend leaves to the C binding. The forces are the same, so the worlds
-- must end on the same checksum.
local function hunt(form, steps, threads)
  local w = steer.world { width = 600, height = 600, edges = "wrap", seed = 11, threads = threads or 1 }
  local hunter, prey
  if form == "plain" then
    hunter = { update = function(self, a)
      local p, d = a.world:nearest(a, 120, "prey")
      if p then
        a:pursue(p)
        a:seek(p, 0.25)
        self.d = d
      else
        a:wander()
      end
      a:stop(0.1)
    end }
    prey = { update = function(_, a)
      local h = a:nearest(100, "hunter")
      if h then
        a:evade(h, 100)
        a:flee(h, 80, 0.5)
        a:intercept(h, 0.1)
      else
        a:wander(0.8)
      end
    end }
  else
    hunter = { update = function(self, a)
      local p, d = a:nearest(120, "prey")
      if p then
        a:steer("pursue", p)
        a:steer("seek", p, 0.25)
        self.d = d
      else
        a:steer("wander")
      end
      a:steer("stop", 0.1)
    end }
    prey = { update = function(_, a)
      local h = a:nearest(100, "hunter")
      if h then
        a:steer("evade", h, 100)
        a:steer("flee", h, 80, 0.5)
        a:steer("intercept", h, 0.1)
      else
        a:steer("wander", 0.8)
      end
    end }
  end
  for i = 1, 300 do
    local is_hunter = i % 10 == 0
    w:spawn { pos = { w:random() * 600, w:random() * 600 }, tag = is_hunter and "hunter" or "prey",
              brain = is_hunter and hunter or prey, max_speed = is_hunter and 160 or 150 }
  end
  for _ = 1, steps do w:step() end
  return w:checksum()
end

describe("the FFI backend", function()
  it("steer.backend says which backend runs", function()
    assert.are.equal(ffi_expected and "ffi" or "c", steer.backend)
  end)

  it("gives the C binding's forces bit for bit (the same checksum as the a:steer forms)", function()
    local plain, c = hunt("plain", 120), hunt("steer", 120)
    assert.are.equal(c, plain)
    assert.are_not.equal(hunt("plain", 119), plain) -- the worlds do move
  end)

  it("keeps the checksum on 2 threads", function()
    assert.are.equal(hunt("plain", 120, 1), hunt("plain", 120, 2))
  end)

  it("hands brains force vectors that are steer.vec2s in all but type()", function()
    local w = steer.world { width = 400, height = 400, seed = 3 }
    local target = w:spawn { pos = { 300, 200 } }
    local seen
    w:spawn { pos = { 100, 200 }, brain = { update = function(_, a)
      local f = a:seek(target)
      local v = steer.vec2(f.x, f.y)
      seen = {
        f == v, v == f, f:len() == v:len(), tostring(f) == tostring(v), (f + v) == v * 2, (-f) == -v,
        f:dot(v) == v:dot(v), a:seek(f) ~= nil, -- a vec2 argument: the bindings take it
        pcall(function() f.x = 1 end) == false, -- immutable
      }
    end } }
    w:step()
    assert.are.same({ true, true, true, true, true, true, true, true, true }, seen)
  end)

  it("keeps removal detection and the C backend's error texts inside a step", function()
    local w = steer.world { width = 400, height = 400, seed = 3 }
    local gone = w:spawn { pos = { 10, 10 }, tag = "x" }
    local errors = {}
    w.on_error = function(_, msg) errors[#errors + 1] = msg end
    w:spawn { pos = { 20, 20 }, brain = { update = function(_, a)
      assert(a.world:nearest(a, 50, "x") == gone) -- seen while alive
      w:remove(gone)
      assert(a.world:nearest(a, 50, "x") == nil) -- a removed agent is never found
      a:pursue(gone)
    end } }
    w:spawn { pos = { 30, 30 }, brain = { update = function(_, a) a:pursue(5) end } }
    w:spawn { pos = { 40, 40 }, brain = { update = function(_, a) a:evade(a, -1) end } }
    w:spawn { pos = { 50, 50 }, brain = { update = function(_, a) steer.agent.wander(a, 0 / 0) end } }
    w:step()
    assert.are.equal(4, #errors)
    assert.truthy(errors[1]:find("attempt to use a removed agent", 1, true), errors[1])
    assert.truthy(errors[2]:find("bad argument #1 to 'pursue' (steer.agent expected, got number)", 1, true), errors[2])
    assert.truthy(errors[3]:find("bad argument #2 to 'evade' (must be >= 0)", 1, true), errors[3])
    assert.truthy(errors[4]:find("bad argument #2 to 'wander' (finite number expected, got nan)", 1, true), errors[4])
    assert.are.equal(4, w:count()) -- the removed one gone, the others running
  end)

  it("steers toward the last agent nearest found only while it is that agent, live, in that world", function()
    -- The FFI backend names nearest's last answer by its handle (it does
    -- not read the agent again): after a removal, a restore or in another
    -- world the target must be checked as any other, as the C binding does.
    local other = steer.world { width = 400, height = 400, seed = 3 }
    local theirs = other:spawn { pos = { 10, 10 }, tag = "x" }
    other:spawn { pos = { 12, 12 }, brain = { update = function(_, a) a.world:nearest(a, 50, "x") end } }
    local w = steer.world { width = 400, height = 400, seed = 3 }
    local errors = {}
    w.on_error = function(_, msg) errors[#errors + 1] = msg end
    local kept
    local mine = w:spawn { pos = { 10, 10 }, tag = "x" }
    w:spawn { pos = { 20, 20 }, tag = "h", brain = { update = function(self, a)
      if self.phase == nil then
        kept = a.world:nearest(a, 50, "x")
        self.f = a:pursue(kept)
        self.phase = 1
      elseif self.phase == 1 then
        other:step() -- its brain's nearest answers `theirs`, which the next line passes here
        a:pursue(theirs)
      end
    end } }
    w:step()
    assert.are.equal(mine, kept)
    assert.is_true(w:step() == nil and #errors == 1)
    assert.truthy(errors[1]:find("bad argument #1 to 'pursue' (agent belongs to another world)", 1, true), errors[1])
  end)

  it("pursues a kept nearest answer through a restore as the C binding does", function()
    -- the same brains with a:steer (always the C binding) must end on the
    -- same checksum, a restore between the query and the behaviour included
    local function run(plain)
      local w = steer.world { width = 300, height = 300, edges = "wrap", seed = 5 }
      local brain = { update = function(self, a)
        local p = a.world:nearest(a, 200, "p")
        if p then self.p = p end
        if self.p and self.p.alive then
          if plain then a:pursue(self.p) else a:steer("pursue", self.p) end
        end
      end }
      for i = 1, 40 do
        w:spawn { pos = { w:random() * 300, w:random() * 300 }, tag = i % 4 == 0 and "h" or "p",
                  brain = i % 4 == 0 and brain or nil }
      end
      w:step()
      local snap = w:snapshot()
      for _ = 1, 5 do w:step() end
      w:restore(snap)
      for _ = 1, 5 do w:step() end
      return w:checksum()
    end
    assert.are.equal(run(false), run(true))
  end)

  it("reads agent fields as the C binding does, removal included", function()
    local w = steer.world { width = 400, height = 400, seed = 3 }
    local a = w:spawn { pos = { 100, 200 }, vel = { 3, 4 }, max_speed = 90, radius = 7, mass = 2, max_force = 300 }
    assert.is_true(a.pos == steer.vec2(100, 200) and a.vel == steer.vec2(3, 4))
    assert.are.same({ 5, 90, 7, 2, 300, 1, true },
                    { a.speed, a.max_speed, a.radius, a.mass, a.max_force, a.id, a.alive })
    assert.is_true(a.heading == steer.vec2(0.6, 0.8) and a.side == steer.vec2(-0.8, 0.6))
    for _ = 1, 10 do w:step() end
    -- another core accessor (render_pos at alpha 1 is the position itself)
    assert.is_true(a.pos == a:render_pos(1) and a.pos.x > 100)
    assert.is_true(a.force == steer.vec2(0, 0) and a.nosuchfield == nil)
    w:remove(a)
    assert.are.same({ false, 1 }, { a.alive, a.id })
    local fields = { "pos", "vel", "heading", "side", "force", "speed", "max_speed", "max_force", "mass", "radius" }
    for _, k in ipairs(fields) do
      local ok, err = pcall(function() return a[k] end)
      assert.is_false(ok)
      assert.truthy(err:find("attempt to use a removed agent", 1, true), err)
    end
  end)

  it("does vec2 arithmetic on its vectors bit for bit as steer.vec2 does, and raises as it does", function()
    local w = steer.world { width = 400, height = 400, seed = 9 }
    local agents = {}
    for i = 1, 40 do
      agents[i] = w:spawn { pos = { w:random() * 400, w:random() * 400 }, vel = { w:random() * 9 - 4, 1 } }
    end
    for _ = 1, 3 do w:step() end
    local function c(v) return steer.vec2(v.x, v.y) end -- the C binding's vec2 (a userdata)
    local same = 0
    for i = 1, 39 do
      local p, q, s = agents[i].pos, agents[i + 1].vel, w:random() * 10 - 5
      local results = {
        { p + q, c(p) + c(q) }, { p - q, c(p) - c(q) }, { p * s, c(p) * s }, { s * q, s * c(q) },
        { p / (s + 6), c(p) / (s + 6) }, { -q, -c(q) },
      }
      for _, r in ipairs(results) do
        if r[1] == r[2] and r[1].x == r[2].x and r[1].y == r[2].y then same = same + 1 end
      end
      assert.are.equal(c(p) == c(q), p == q)
    end
    assert.are.equal(39 * 6, same)
    local v = agents[1].pos
    for _, case in ipairs {
      { function() return v / 0 end, "vec2 result is not finite" },
      { function() return v * 1e308 * 1e308 end, "vec2 result is not finite" },
      { function() return v + 1 end, "attempt to perform vec2 arithmetic on a number value (point expected)" },
      { function() return v * "x" end, "attempt to scale a steer.vec2 by a string value (number expected)" },
      { function() return 2 / v end, "attempt to divide a number value by a steer.vec2" },
    } do
      local ok, err = pcall(case[1])
      assert.is_false(ok)
      assert.truthy(err:find(case[2], 1, true), err)
    end
    assert.is_true(v + { 1, 1 } == c(v) + { 1, 1 }) -- a point table as the other operand
  end)

  it("answers neighbors as the C binding does (the same agents in the same order), and raises as it does", function()
    local w = steer.world { width = 300, height = 300, edges = "wrap", seed = 4 }
    for i = 1, 120 do
      w:spawn { pos = { w:random() * 300, w:random() * 300 }, tag = i % 3 == 0 and "h" or "p" }
    end
    local seen, compared = {}, 0
    w:spawn { pos = { 150, 150 }, brain = { update = function(_, a)
      -- a full-circle fov is no cone: the same query, which the FFI
      -- backend leaves to the C binding
      local pairs_ = {
        { a.world:neighbors(a, 60), a.world:neighbors(a, 60, { fov = 7 }) },
        { a:neighbors(60, { tag = "h" }), a:neighbors(60, { tag = "h", fov = 7 }) },
        { a:neighbors(0), a:neighbors(0, { fov = 7 }) },
      }
      for _, p in ipairs(pairs_) do
        compared = compared + 1
        seen[#seen + 1] = #p[1] == #p[2]
        for i = 1, #p[2] do seen[#seen + 1] = rawequal(p[1][i], p[2][i]) end
      end
      local victim = a:neighbors(60)[1]
      w:remove(victim)
      for _, o in ipairs(a:neighbors(60)) do seen[#seen + 1] = o ~= victim and o.alive end
    end } }
    w:step()
    assert.are.equal(3, compared)
    assert.is_true(#seen > 10)
    for i = 1, #seen do assert.is_true(seen[i], "entry " .. i) end
    local a = w:spawn { pos = { 10, 10 } }
    for _, case in ipairs {
      -- (not tail calls: LuaJIT names no function for those)
      { function() local t = a:neighbors(-1) return t end, "bad argument #1 to 'neighbors' (must be >= 0)" },
      { function() local t = w:neighbors(a, 5, { tag = 3 }) return t end,
        "bad argument #3 to 'neighbors' (field 'tag': string expected, got number)" },
      { function() local t = w:neighbors(a, "x") return t end,
        "bad argument #2 to 'neighbors' (number expected, got string)" },
    } do
      local ok, err = pcall(case[1])
      assert.is_false(ok)
      assert.truthy(err:find(case[2], 1, true), err)
    end
    w:remove(a)
    local ok, err = pcall(function() local t = a:neighbors(5) return t end)
    assert.truthy(not ok and err:find("attempt to use a removed agent", 1, true), err)
  end)

  it("runs no brain of an agent removed earlier in the same pass, nor of one spawned in it", function()
    -- the FFI loop skips in C the agents the C loop skips (brain.c)
    local w = steer.world { width = 200, height = 200, seed = 2 }
    local ran = {}
    local later
    local brain = { update = function(self) ran[#ran + 1] = self.name end }
    w:spawn { pos = { 10, 10 }, name = "first", brain = { update = function(self, a)
      ran[#ran + 1] = "first"
      if self.done then return end
      self.done = true
      w:remove(later)
      a.world:spawn { pos = { 20, 20 }, name = "newborn", brain = brain }
    end } }
    later = w:spawn { pos = { 30, 30 }, name = "later", brain = brain }
    w:spawn { pos = { 40, 40 }, name = "last", brain = brain }
    w:step()
    assert.are.same({ "first", "last" }, ran)
    w:step() -- the newborn thinks from the next step on
    assert.are.same({ "first", "last", "first", "last", "newborn" }, ran)
  end)

  it("snapshots a force kept in a brain's state as a steer.vec2", function()
    local w = steer.world { width = 400, height = 400, seed = 3 }
    local target = w:spawn { pos = { 300, 200 } }
    local a = w:spawn { pos = { 100, 200 }, brain = { update = function(self, a) self.f = a:seek(target) end } }
    w:step()
    local kept = a.self.f
    local snap = w:snapshot()
    w:step()
    w:restore(snap)
    assert.is_true(steer.vec2(kept.x, kept.y) == a.self.f)
    assert.are.equal("userdata", type(a.self.f)) -- restored as the C backend's vec2
  end)

  it("gives render_pos the C binding's answer and errors", function()
    local w = steer.world { width = 400, height = 400, seed = 3 }
    local a = w:spawn { pos = { 100, 200 }, vel = { 30, 10 } }
    w:step()
    assert.is_true(a:render_pos() == a.pos and a:render_pos(1) == a.pos)
    local half = a:render_pos(0.5)
    assert.is_true(half.x < a.pos.x and half.x > a.pos.x - 1)
    local ok, err = pcall(function() local p = a:render_pos(2) return p end)
    assert.is_false(ok)
    assert.truthy(err:find("to 'render_pos' (must be in [0, 1])", 1, true), err)
    w:remove(a)
    ok, err = pcall(function() local p = a:render_pos() return p end)
    assert.truthy(not ok and err:find("attempt to use a removed agent", 1, true), err)
  end)

  it("finds agents through a restore, which makes the world's agent table anew", function()
    local w = steer.world { width = 400, height = 400, seed = 3 }
    local found = {}
    local brain = { update = function(_, a) found[#found + 1] = a.world:nearest(a, 500, "t") end }
    local t = w:spawn { pos = { 10, 10 }, tag = "t" }
    w:spawn { pos = { 20, 20 }, brain = brain }
    local snap = w:snapshot()
    w:step()
    w:restore(snap)
    w:step()
    assert.are.equal(2, #found)
    assert.are.equal(t, found[1])
    assert.is_true(found[2] ~= nil and found[2].alive and found[2].id == t.id)
  end)

  -- ---- steer.vec2 itself on FFI types ----

  -- A steer.vec2 userdata on every backend: a behaviour called outside a
  -- step is always the C binding's. Its methods (u.len, ...) are vec2.c's
  -- C functions, which take an FFI vec2 too: the reference below.
  local function c_vec2()
    local w = steer.world { width = 100, height = 100, seed = 1 }
    local u = w:spawn { pos = { 0, 0 } }:seek { 10, 0 }
    assert(type(u) == "userdata")
    return u
  end
  local function bits(x) return ("%.17g"):format(x) end

  it("makes steer.vec2(x, y) an FFI vec2 whose methods give vec2.c's results bit for bit", function()
    local v = steer.vec2(3, -4.5)
    assert.are.equal(ffi_expected and "cdata" or "userdata", type(v))
    assert.are.same({ 3, -4.5, "vec2(3, -4.5)" }, { v.x, v.y, tostring(v) })
    local u = c_vec2()
    local w = steer.world { width = 100, height = 100, seed = 8 }
    local function rnd(scale) return (w:random() * 2 - 1) * scale end
    local compared = 0
    for i = 1, 200 do
      local scale = ({ 1e-160, 1e-3, 1, 1e3, 1e150 })[i % 5 + 1]
      local p, q = steer.vec2(rnd(scale), rnd(scale)), steer.vec2(rnd(scale), rnd(scale))
      local t, ang = w:random(), rnd(10)
      local cases = {
        { p:len(), u.len(p) }, { p:len2(), u.len2(p) }, { p:angle(), u.angle(p) },
        { p:dot(q), u.dot(p, q) }, { p:cross(q), u.cross(p, q) }, { p:dist(q), u.dist(p, q) },
        { p:dist2(q), u.dist2(p, q) },
        { p:normalized(), u.normalized(p) }, { p:rotated(ang), u.rotated(p, ang) },
        { p:truncated(scale / 2), u.truncated(p, scale / 2) }, { p:lerp(q, t), u.lerp(p, q, t) },
        { p:perp(), u.perp(p) }, { steer.vec2.from_angle(ang, scale), u.rotated(steer.vec2(scale, 0), ang) },
      }
      for k, c in ipairs(cases) do
        local a, b = c[1], c[2]
        if type(b) == "number" then
          assert.are.equal(bits(b), bits(a), "case " .. k .. " of vector " .. i)
        else
          assert.are.equal(type(v), type(a), "case " .. k)
          assert.are.same({ bits(b.x), bits(b.y) }, { bits(a.x), bits(a.y) }, "case " .. k .. " of vector " .. i)
        end
        compared = compared + 1
      end
      local x, y = p:unpack()
      assert.is_true(x == p.x and y == p.y)
    end
    assert.are.equal(200 * 13, compared)
    -- other operands than FFI vec2s: vec2.c's answer
    assert.are.equal(11, v:dot { 1, -1.7777777777777777 } + 11 - v:dot(steer.vec2(1, -1.7777777777777777)))
    assert.are.equal(bits(u.dist(v, u)), bits(v:dist(u)))
  end)

  it("raises the C backend's errors from the vec2 constructors and methods", function()
    local v = steer.vec2(3, 4)
    for _, case in ipairs {
      { function() local x = steer.vec2(nil, 1) return x end, "bad argument #1 to 'vec2' (number expected, got nil)" },
      { function() local x = steer.vec2(1, "2") return x end,
        "bad argument #2 to 'vec2' (number expected, got string)" },
      { function() local x = steer.vec2(0 / 0, 1) return x end,
        "bad argument #1 to 'vec2' (finite number expected, got nan)" },
      { function() local x = steer.vec2(1, -math.huge) return x end,
        "bad argument #2 to 'vec2' (finite number expected, got -inf)" },
      { function() local x = steer.vec2.from_angle(math.huge) return x end,
        "bad argument #1 to 'from_angle' (finite number expected, got inf)" },
      { function() local x = steer.vec2.from_angle(1, "x") return x end,
        "bad argument #2 to 'from_angle' (number expected, got string)" },
      { function() local x = v:rotated("x") return x end,
        "bad argument #1 to 'rotated' (number expected, got string)" },
      { function() local x = v:truncated(-1) return x end, "bad argument #1 to 'truncated' (must be >= 0)" },
      { function() local x = v:lerp(v, 0 / 0) return x end,
        "bad argument #2 to 'lerp' (finite number expected, got nan)" },
      { function() local x = v:dot(5) return x end, "bad argument #1 to 'dot' (steer.vec2 expected, got number)" },
      { function() local x = v.len(5) return x end, "bad argument #1 to 'len' (steer.vec2 expected, got number)" },
      { function() local x = steer.vec2(1e200, 1e200):len2() return x end, "vec2 result is not finite" },
      { function() local x = steer.vec2(1e300, 0):rotated(1) * 1e10 return x end, "vec2 result is not finite" },
      { function() local x = steer.vec2(1e308, 0):lerp(steer.vec2(-1e308, 0), 4) return x end,
        "vec2 result is not finite" },
      { function() v.z = 1 end, "steer.vec2 is immutable (cannot assign field 'z')" },
    } do
      local ok, err = pcall(case[1])
      assert.is_false(ok, case[2])
      assert.truthy(err:find(case[2], 1, true), err)
      assert.truthy(err:find("ffi_spec.lua:%d+: ") or not err:find("^bad"), err) -- raised at the caller
    end
    assert.is_false(pcall(function() v.x = 1 end)) -- x and y are read only (LuaJIT's own text on the FFI)
    assert.are.same({ 3, 4 }, { v:unpack() })
  end)

  it("takes no FFI vec2 that is not finite (one made by hand with ffi.new)", function()
    if not ffi_expected then return end
    local bad = require("ffi").new("steer_vec2", 0 / 0, 1)
    local w = steer.world { width = 100, height = 100, seed = 1 }
    local a = w:spawn { pos = { 10, 10 } }
    local ok, err = pcall(function() a.pos = bad end)
    assert.truthy(not ok and err:find("invalid value for field 'pos' (steer.vec2 expected, got cdata)", 1, true), err)
    ok, err = pcall(function() local f = a:seek(bad) return f end)
    assert.is_false(ok, err)
    assert.are.equal(10, a.pos.x)
  end)

  -- ---- agent fields written on the FFI ----

  it("assigns agent fields as the C binding does (the same checksum as the table forms)", function()
    -- form "vec2": a.pos = <vec2> (the FFI path); "table": a.pos = {x, y}
    -- (the C binding's). The numbers and tags go the same way on both.
    local function run(form, threads)
      local w = steer.world { width = 400, height = 400, edges = "wrap", seed = 21, threads = threads }
      local function point(x, y) if form == "vec2" then return steer.vec2(x, y) end return { x, y } end
      local brain = { update = function(self, a)
        self.n = (self.n or 0) + 1
        local p = a.pos
        if self.n % 7 == 1 then a.vel = point((p.y - 200) / 4, (200 - p.x) / 4) end
        if self.n % 13 == 0 then a.pos = point(p.x + 3, p.y - 2) end
        a.max_speed = 40 + self.n % 30
        a.max_force = 90 + self.n % 11
        a.mass = 1 + (self.n % 3) / 2
        a.radius = 3 + self.n % 4
        a.tag = (self.n % 5 == 0) and "far" or (self.n % 5 == 1 and "near" or nil)
        local o = a:nearest(80, "near")
        if o then a:seek(o.pos, 0.5) else a:wander() end
      end }
      for _ = 1, 60 do
        w:spawn { pos = { w:random() * 400, w:random() * 400 }, tag = "near", brain = brain }
      end
      for _ = 1, 40 do w:step() end
      return w:checksum()
    end
    local ffi_form = run("vec2", 1)
    assert.are.equal(run("table", 1), ffi_form)
    assert.are.equal(ffi_form, run("vec2", 2))
  end)

  it("reads back what was assigned, tags included, and raises the C binding's errors", function()
    local w = steer.world { width = 400, height = 400, seed = 3 }
    local a = w:spawn { pos = { 10, 20 }, tag = "prey" }
    local b = w:spawn { pos = { 30, 20 }, tag = "hunter" }
    assert.are.same({ "prey", "hunter" }, { a.tag, b.tag })
    a.pos, a.vel = steer.vec2(50, 60), steer.vec2(-1, 2)
    a.max_speed, a.max_force, a.mass, a.radius = 33, 44, 0.5, 0
    assert.is_true(a.pos == steer.vec2(50, 60) and a.vel == steer.vec2(-1, 2))
    assert.are.same({ 33, 44, 0.5, 0 }, { a.max_speed, a.max_force, a.mass, a.radius })
    a.tag = "hunter"
    assert.are.equal("hunter", a.tag)
    assert.are.equal(2, w:count("hunter"))
    a.tag = nil
    assert.is_nil(a.tag)
    a.tag = "scout" -- a new name: interned, then found by name
    assert.are.same({ "scout", 1 }, { a.tag, w:count("scout") })
    assert.are.equal(a, w:nearest(b, 100, "scout"))
    local snap = w:snapshot()
    a.tag = "prey"
    w:restore(snap) -- new tables of tags and agents: still read right
    assert.are.same({ "scout", "hunter" }, { a.tag, b.tag })
    for _, case in ipairs {
      { function() a.max_speed = -1 end, "invalid value for field 'max_speed' (must be >= 0)" },
      { function() a.max_force = 0 / 0 end, "invalid value for field 'max_force' (finite number expected, got nan)" },
      { function() a.radius = "3" end, "invalid value for field 'radius' (number expected, got string)" },
      { function() a.mass = 0 end, "invalid value for field 'mass' (must be > 0)" },
      { function() a.pos = 5 end, "invalid value for field 'pos' (steer.vec2 expected, got number)" },
      { function() a.vel = { 1, math.huge } end, "invalid value for field 'vel' (point coordinates must be finite)" },
      { function() a.tag = 7 end, "invalid value for field 'tag' (string or nil expected, got number)" },
      { function() a.heading = steer.vec2(1, 0) end, "field 'heading' of steer.agent is read-only" },
      { function() a.nosuch = 1 end, "no field 'nosuch' in steer.agent" },
    } do
      local ok, err = pcall(case[1])
      assert.is_false(ok, case[2])
      assert.truthy(err:find(case[2], 1, true), err)
      assert.truthy(err:find("^[^\n]-ffi_spec.lua:%d+: "), err) -- raised where the assignment is
    end
    assert.are.same({ 33, 44, 0.5, 0, "scout" }, { a.max_speed, a.max_force, a.mass, a.radius, a.tag })
    assert.is_true(a.pos == steer.vec2(50, 60) and a.vel == steer.vec2(-1, 2))
    w:remove(a)
    for _, k in ipairs { "pos", "max_speed", "tag" } do
      local ok, err = pcall(function() a[k] = k == "pos" and steer.vec2(1, 1) or (k == "tag" and "prey" or 1) end)
      assert.truthy(not ok and err:find("attempt to use a removed agent", 1, true), err)
    end
    local ok, err = pcall(function() local t = a.tag return t end)
    assert.truthy(not ok and err:find("attempt to use a removed agent", 1, true), err)
  end)

  -- ---- neighbors with a view cone, a heading, a point ----

  it("answers nearest around a point as the C binding does, and raises as it does", function()
    local w = steer.world { width = 300, height = 300, edges = "wrap", seed = 6 }
    for i = 1, 150 do w:spawn { pos = { w:random() * 300, w:random() * 300 }, tag = i % 3 == 0 and "h" or "p" } end
    -- A point given as a table is the C binding's to read: the reference.
    local found, compared = 0, 0
    for _ = 1, 200 do
      local p = steer.vec2(w:random() * 300, w:random() * 300)
      for _, tag in ipairs { "h", "p", "nobody" } do
        local a1, d1 = w:nearest(p, 40, tag)
        local a2, d2 = w:nearest({ p.x, p.y }, 40, tag)
        assert.is_true(rawequal(a1, a2) and d1 == d2, ("around %s, tag %s"):format(tostring(p), tag))
        compared = compared + 1
        if a1 then found = found + 1 end
      end
      local a1, d1 = w:nearest(p, 25)
      local a2, d2 = w:nearest({ p.x, p.y }, 25)
      assert.is_true(rawequal(a1, a2) and d1 == d2)
    end
    assert.are.equal(600, compared)
    assert.is_true(found > 200, "found " .. found)
    -- the nearest of a point is nobody left out: an agent's own position finds it
    local a = w:spawn { pos = { 10, 10 } }
    local o, d = w:nearest(steer.vec2(10, 10), 1)
    assert.is_true(rawequal(o, a) and d == 0)
    for _, case in ipairs {
      { function() local x = w:nearest(steer.vec2(1, 1), -5) return x end,
        "bad argument #2 to 'nearest' (must be >= 0)" },
      { function() local x = w:nearest(steer.vec2(1, 1), 0 / 0) return x end,
        "bad argument #2 to 'nearest' (finite number expected, got nan)" },
      { function() local x = w:nearest(steer.vec2(1, 1), 5, true) return x end,
        "bad argument #3 to 'nearest' (string expected, got boolean)" },
    } do
      local ok, err = pcall(case[1])
      assert.is_false(ok, case[2])
      assert.truthy(err:find(case[2], 1, true), err)
    end
  end)

  it("answers neighbors with fov, heading and a point centre as the C binding does", function()
    local w = steer.world { width = 300, height = 300, edges = "wrap", seed = 6 }
    for i = 1, 150 do
      w:spawn { pos = { w:random() * 300, w:random() * 300 }, vel = { w:random() * 2 - 1, w:random() * 2 - 1 },
                tag = i % 3 == 0 and "h" or "p" }
    end
    -- The C binding answers for opts it reads itself: a table with a
    -- metatable, a point or heading given as a table.
    local function via_c(t) return setmetatable({}, { __index = t }) end
    local seen, compared = {}, 0
    local function same_list(x, y)
      compared = compared + 1
      seen[#seen + 1] = #x == #y
      for i = 1, math.max(#x, #y) do seen[#seen + 1] = rawequal(x[i], y[i]) end
    end
    w:spawn { pos = { 150, 150 }, vel = { 1, 1 }, brain = { update = function(_, a)
      for _, fov in ipairs { 0, 0.5, math.rad(120), math.rad(270), 7 } do
        same_list(a:neighbors(70, { fov = fov }), a:neighbors(70, via_c { fov = fov }))
        same_list(a.world:neighbors(a, 70, { fov = fov, tag = "h" }),
                  a.world:neighbors(a, 70, via_c { fov = fov, tag = "h" }))
        local h = steer.vec2(-3, 1e-3)
        same_list(a:neighbors(70, { fov = fov, heading = h }), a:neighbors(70, { fov = fov, heading = { h.x, h.y } }))
        local p = steer.vec2(20, 290) -- near a corner: across the wrap
        same_list(a.world:neighbors(p, 60, { fov = fov, heading = h }),
                  a.world:neighbors({ p.x, p.y }, 60, { fov = fov, heading = { h.x, h.y } }))
      end
      same_list(a.world:neighbors(steer.vec2(150, 150), 40), a.world:neighbors({ 150, 150 }, 40))
      same_list(a:neighbors(70, { heading = steer.vec2(1e-300, 0), fov = 1 }),
                a:neighbors(70, { heading = { 1e-300, 0 }, fov = 1 }))
    end } }
    w:step()
    assert.are.equal(5 * 4 + 2, compared)
    assert.is_true(#seen > 100)
    for i = 1, #seen do assert.is_true(seen[i], "entry " .. i) end
    -- a cone narrows, a full turn does not
    local a = w:spawn { pos = { 150, 150 }, vel = { 1, 0 } }
    assert.is_true(#a:neighbors(100, { fov = 0.5 }) < #a:neighbors(100))
    assert.are.equal(#a:neighbors(100), #a:neighbors(100, { fov = 7 }))
    for _, case in ipairs {
      { function() local t = a:neighbors(50, { fov = -1 }) return t end,
        "bad argument #2 to 'neighbors' (field 'fov': must be >= 0)" },
      { function() local t = a:neighbors(50, { fov = 0 / 0 }) return t end,
        "bad argument #2 to 'neighbors' (field 'fov': finite number expected, got nan)" },
      { function() local t = a:neighbors(50, { heading = steer.vec2(0, 0) }) return t end,
        "bad argument #2 to 'neighbors' (field 'heading': must be a non-zero vector)" },
      { function() local t = w:neighbors(steer.vec2(1, 1), 50, { fov = 1 }) return t end,
        "bad argument #3 to 'neighbors' (field 'fov': a view cone around a point needs opts.heading)" },
      { function() local t = w:neighbors(steer.vec2(1, 1), -5) return t end,
        "bad argument #2 to 'neighbors' (must be >= 0)" },
    } do
      local ok, err = pcall(case[1])
      assert.is_false(ok, case[2])
      assert.truthy(err:find(case[2], 1, true), err)
    end
  end)
end)
