-- The calls made for thousands of brains (API.md, "agent (vehicle)"):
-- a:steer(name, ...), a behaviour without its vec2 result, and a:nearest /
-- a:neighbors, the world's queries around the agent itself.
local steer = require "steer"
local H = require "spec_helper"

local raises = H.raises

-- Two identical worlds of 60 agents (one in five a "hunter") in a wrap
-- square, seeded alike.
local function twin_worlds()
  local ws = {}
  for k = 1, 2 do
    local w = steer.world { width = 600, height = 600, edges = "wrap", seed = 11 }
    for i = 1, 60 do
      w:spawn { pos = { w:random() * 600, w:random() * 600 }, vel = { w:random(-20, 20), w:random(-20, 20) },
                tag = i % 5 == 0 and "hunter" or "prey" }
    end
    ws[k] = w
  end
  return ws[1], ws[2]
end

describe("a:steer(name, ...)", function()
  it("steers exactly as the method of that name: the same world, step after step", function()
    local w1, w2 = twin_worlds()
    local path1 = steer.path { { 100, 100 }, { 500, 100 }, { 500, 500 }, loop = true }
    local path2 = steer.path { { 100, 100 }, { 500, 100 }, { 500, 500 }, loop = true }
    for _ = 1, 120 do
      local i = 0
      for a in w1:agents() do
        i = i + 1
        local h = w1:nearest(a, 150, "hunter")
        if h then a:evade(h, 120, 2) else a:wander(0.5) end
        if i % 3 == 0 then a:arrive({ 300, 300 }, 80, 1, "fast") end
        if i % 4 == 0 then a:follow_path(path1, { mode = "predict", predict = 0.3 }, 0.5) end
        a:separate(w1:neighbors(a, 30), 1.5)
        a:flock { radius = 40, separation = 2 }
      end
      i = 0
      for a in w2:agents() do
        i = i + 1
        local h = a:nearest(150, "hunter")
        if h then a:steer("evade", h, 120, 2) else a:steer("wander", 0.5) end
        if i % 3 == 0 then a:steer("arrive", { 300, 300 }, 80, 1, "fast") end
        if i % 4 == 0 then a:steer("follow_path", path2, { mode = "predict", predict = 0.3 }, 0.5) end
        a:steer("separate", a:neighbors(30), 1.5)
        a:steer("flock", { radius = 40, separation = 2 })
      end
      w1:step()
      w2:step()
      assert.are.equal(w1:checksum(), w2:checksum())
    end
  end)

  it("returns nothing", function()
    local w = H.open_world()
    local a = w:spawn { pos = { 0, 0 } }
    local b = w:spawn { pos = { 50, 0 } }
    assert.are.equal(0, select("#", a:steer("seek", b)))
    assert.are.equal(0, select("#", a:steer("wander")))
    assert.are.equal(0, select("#", a:steer("face", b)))
    assert.are.equal(0, select("#", a:steer("cohere", { b })))
  end)

  it("makes no garbage, where the method makes a vec2 a call", function()
    local w = H.open_world()
    local a = w:spawn { pos = { 0, 0 } }
    local b = w:spawn { pos = { 50, 0 }, vel = { 5, 5 } }
    -- LuaJIT's compiler keeps its traces in the same heap, and whether the
    -- loop below gets one depends on where its code landed (the hot-count
    -- table is hashed by address): measured with the compiler off, the
    -- heap holds the binding's garbage alone.
    local jit = rawget(_G, "jit")
    local function grown(f)
      for _ = 1, 10 do f() end -- the name cache fills on the first call
      if jit then jit.off() end
      collectgarbage("collect")
      collectgarbage("stop")
      local before = collectgarbage("count")
      for _ = 1, 2000 do f() end
      local kb = collectgarbage("count") - before
      collectgarbage("restart")
      if jit then jit.on() end
      return kb
    end
    local quiet = grown(function() a:steer("evade", b) a:steer("wander") end)
    local loud = grown(function() a:evade(b) a:wander() end)
    assert.is_true(quiet < 1, ("a:steer grew the heap by %.1f KiB"):format(quiet))
    assert.is_true(loud > 4000 * 16 / 1024, ("the methods grew it by only %.1f KiB"):format(loud))
  end)

  it("names its errors as a method of its own", function()
    local w = H.open_world()
    local a = w:spawn { pos = { 0, 0 } }
    local b = w:spawn { pos = { 50, 0 } }
    raises(function() a:steer("evdae", b) end, "bad argument #1 to 'steer' (unknown behaviour 'evdae')")
    raises(function() a:steer("apply", { 1, 2 }) end, "unknown behaviour 'apply'")
    raises(function() a:steer() end, "bad argument #1 to 'steer' (string expected, got no value)")
    raises(function() a:steer(5) end, "bad argument #1 to 'steer' (string expected, got number)")
    raises(function() a:steer("evade") end, "bad argument #2 to 'steer' (steer.agent expected, got no value)")
    raises(function() a:steer("evade", 5) end, "bad argument #2 to 'steer' (steer.agent expected, got number)")
    raises(function() a:steer("evade", b, -1) end, "bad argument #3 to 'steer' (must be >= 0)")
    raises(function() a:steer("seek", b, 0 / 0) end, "bad argument #3 to 'steer'")
    raises(function() a:steer("separate", { b, 4 }) end, "bad argument #2 to 'steer' ([2]: steer.agent expected")
    raises(function() a.steer(w, "wander") end, "steer.agent expected, got steer.world")
    local force = a.force
    w:remove(b)
    raises(function() b:steer("wander") end, "attempt to use a removed agent")
    raises(function() a:steer("pursue", b) end, "bad argument #2 to 'steer'")
    assert.are.equal(force, a.force)
  end)
end)

describe("steer.agent", function()
  it("holds every agent method, the same function a.method gives", function()
    local w = H.open_world()
    local a = w:spawn { pos = { 0, 0 } }
    local n = 0
    for name, f in pairs(steer.agent) do
      n = n + 1
      assert.are.equal("function", type(f))
      assert.are.equal(a[name], f, name)
    end
    assert.is_true(n >= 29, "29 methods expected, got " .. n)
    for _, name in ipairs { "seek", "evade", "wander", "separate", "apply", "steer", "nearest", "neighbors", "face" } do
      assert.is_function(steer.agent[name], name)
    end
    assert.is_nil(steer.agent.pos)
  end)

  it("called as plain functions, steers as the methods do", function()
    local w1, w2 = twin_worlds()
    local nearest, steer_fn = steer.agent.nearest, steer.agent.steer
    for _ = 1, 60 do
      for a in w1:agents() do
        local h = a.world:nearest(a, 120, "hunter")
        if h then a:evade(h) else a:wander() end
      end
      for a in w2:agents() do
        local h = nearest(a, 120, "hunter")
        if h then steer_fn(a, "evade", h) else steer_fn(a, "wander") end
      end
      w1:step()
      w2:step()
    end
    assert.are.equal(w1:checksum(), w2:checksum())
    -- as plain calls the arguments count from the agent, #1
    local a = w1:nearest({ 300, 300 }, 1000)
    raises(function() nearest(nil, 10) end, "bad argument #1 to", "(steer.agent expected, got nil)")
    raises(function() nearest(a, -10) end, "bad argument #2 to", "(must be >= 0)")
    raises(function() steer_fn(a, "nope") end, "bad argument #2 to", "(unknown behaviour 'nope')")
  end)
end)

describe("a:nearest and a:neighbors", function()
  it("answer as the world's queries around the agent do", function()
    local w = twin_worlds()
    for a in w:agents() do
      for _, r in ipairs { 0, 40, 150, 1000 } do
        for _, tag in ipairs { "hunter", "prey", "nobody" } do
          local x, d = a:nearest(r, tag)
          local y, e = w:nearest(a, r, tag)
          assert.are.equal(y, x)
          assert.are.equal(e, d)
          assert.are_not.equal(a, x)
        end
        local x, d = a:nearest(r)
        local y, e = w:nearest(a, r)
        assert.are.equal(y, x)
        assert.are.equal(e, d)
        local opts = { tag = "prey", fov = math.rad(200) }
        assert.are.same(w:neighbors(a, r, opts), a:neighbors(r, opts))
        assert.are.same(w:neighbors(a, r), a:neighbors(r))
      end
    end
  end)

  it("give each agent's one userdata, and follow the answer as it changes", function()
    -- An agent keeps the userdata of its own query's last answer: the next
    -- answer must still be the live agent's own userdata, never a stale one.
    local w = steer.world { width = 400, height = 400, edges = "wrap", seed = 3 }
    local a = w:spawn { pos = { 100, 100 } }
    local b = w:spawn { pos = { 120, 100 }, tag = "hunter" }
    local c = w:spawn { pos = { 200, 100 }, tag = "hunter" }
    local function near() return (a:nearest(150, "hunter")) end
    assert.is_true(rawequal(b, near()))
    assert.is_true(rawequal(b, near()))
    assert.is_true(rawequal(b, (w:nearest(a, 150, "hunter"))))
    b.pos = { 300, 300 }
    assert.is_true(rawequal(c, near()))
    assert.is_true(rawequal(c, (w:nearest(a, 150, "hunter"))))
    b.pos = { 110, 100 }
    assert.is_true(rawequal(b, near()))
    w:remove(b)
    assert.is_true(rawequal(c, near()))
    -- a new agent in the removed one's slot, where it was: itself, not b
    local d = w:spawn { pos = { 110, 100 }, tag = "hunter" }
    assert.is_true(rawequal(d, near()))
    w:remove(d)
    w:remove(c)
    assert.is_nil(near())
    -- across steps and a restore
    local e = w:spawn { pos = { 130, 100 }, tag = "hunter" }
    local snap = w:snapshot()
    for _ = 1, 3 do
      w:step()
      assert.is_true(rawequal(e, near()))
    end
    w:remove(e)
    assert.is_nil(near())
    w:restore(snap)
    assert.is_true(e.alive)
    assert.is_true(rawequal(e, near()))
  end)

  it("check their arguments as the world's do", function()
    local w = H.open_world()
    local a = w:spawn { pos = { 0, 0 } }
    local b = w:spawn { pos = { 10, 0 } }
    raises(function() a:nearest() end, "bad argument #1 to 'nearest' (number expected, got no value)")
    raises(function() a:nearest(-1) end, "bad argument #1 to 'nearest' (must be >= 0)")
    raises(function() a:nearest(1 / 0) end, "bad argument #1 to 'nearest'")
    raises(function() a:nearest(10, {}) end, "bad argument #2 to 'nearest' (string expected, got table)")
    raises(function() a.nearest(w, 10) end, "bad argument #1 to 'nearest' (steer.agent expected, got steer.world)")
    raises(function() a:neighbors(-3) end, "bad argument #1 to 'neighbors' (must be >= 0)")
    raises(function() a:neighbors(10, 5) end, "bad argument #2 to 'neighbors' (table expected, got number)")
    raises(function() a:neighbors(10, { fov = "x" }) end, "bad argument #2 to 'neighbors' (field 'fov'")
    assert.are.equal(b, (a:nearest(20)))
    w:remove(b)
    assert.is_nil(a:nearest(20))
    raises(function() b:nearest(20) end, "attempt to use a removed agent")
    raises(function() b:neighbors(20) end, "attempt to use a removed agent")
  end)
end)
