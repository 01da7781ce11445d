-- steer.vec2: an immutable 2D vector (API.md, "vec2").
local steer = require "steer"
local vec2 = steer.vec2
local H = require "spec_helper"

local EPS, nan, inf = H.EPS, H.nan, H.inf
local error_of, raises, same = H.error_of, H.raises, H.same

describe("steer.vec2", function()
  describe("construction", function()
    it("holds the two numbers", function()
      local v = vec2(3, -4.5)
      assert.are.equal(3, v.x)
      assert.are.equal(-4.5, v.y)
    end)

    it("is a userdata whose metatable is named steer.vec2 (on LuaJIT's FFI backend, a steer_vec2 cdata)", function()
      local v = vec2(1, 2)
      if steer.backend == "ffi" then
        assert.are.equal("cdata", type(v))
        assert.is_true(require("ffi").istype("steer_vec2", v))
      else
        assert.are.equal("userdata", type(v))
        assert.are.equal("steer.vec2", debug.getmetatable(v).__name)
      end
    end)

    it("rejects missing or non-numeric components, naming the argument", function()
      raises(function() local _ = vec2(nil, 1) end, "bad argument #1 to 'vec2'")
      raises(function() local _ = vec2(1, nil) end, "bad argument #2 to 'vec2'")
      raises(function() local _ = vec2({}, 1) end, "bad argument #1 to 'vec2'")
      raises(function() local _ = vec2(1, "four") end, "bad argument #2 to 'vec2'")
    end)

    it("rejects nan and inf", function()
      raises(function() local _ = vec2(nan, 0) end, "bad argument #1 to 'vec2'")
      raises(function() local _ = vec2(0, inf) end, "bad argument #2 to 'vec2'")
      raises(function() local _ = vec2(-inf, 0) end, "bad argument #1 to 'vec2'")
    end)
  end)

  describe("fields", function()
    it("are read only", function()
      local v = vec2(1, 2)
      error_of(function() v.x = 5 end)
      error_of(function() v.y = 5 end)
      error_of(function() v.z = 5 end)
      assert.are.equal(1, v.x)
      assert.are.equal(2, v.y)
    end)
  end)

  describe("operators", function()
    local a, b = vec2(1, 2), vec2(3, -5)

    it("add and subtract", function()
      same(a + b, 4, -3)
      same(a - b, -2, 7)
    end)

    it("negate", function()
      same(-a, -1, -2)
    end)

    it("scale by a number on either side and divide by a number", function()
      same(a * 3, 3, 6)
      same(3 * a, 3, 6)
      same(b / 2, 1.5, -2.5)
    end)

    it("compare by value", function()
      assert.is_true(vec2(1, 2) == vec2(1, 2))
      assert.is_false(vec2(1, 2) == vec2(2, 1))
      assert.is_true(a ~= b)
    end)

    it("never change their operands", function()
      local _ = a + b
      local _ = a * 10
      local _ = -a
      same(a, 1, 2)
      same(b, 3, -5)
    end)

    it("raise when the result is not finite", function()
      error_of(function() local _ = a / 0 end)
      error_of(function() local _ = vec2(1e308, 0) * 10 end)
      error_of(function() local _ = vec2(1e308, 0) + vec2(1e308, 0) end)
      error_of(function() local _ = a * nan end)
      error_of(function() local _ = inf * a end)
    end)

    it("raise on a non-number scale", function()
      error_of(function() local _ = a * "x" end)
      error_of(function() local _ = a / {} end)
    end)
  end)

  describe("tostring", function()
    it("prints integers without a fraction", function()
      assert.are.equal("vec2(3, 4)", tostring(vec2(3, 4)))
    end)

    it("prints fractions and signs like Lua prints numbers", function()
      assert.are.equal("vec2(0.5, -1.25)", tostring(vec2(0.5, -1.25)))
    end)
  end)

  describe("methods", function()
    it("len and len2", function()
      local v = vec2(3, 4)
      assert.near(5, v:len(), EPS)
      assert.near(25, v:len2(), EPS)
      assert.are.equal(0, vec2(0, 0):len())
    end)

    it("normalized gives a unit vector in the same direction", function()
      local n = vec2(3, 4):normalized()
      same(n, 0.6, 0.8)
      assert.near(1, n:len(), EPS)
    end)

    it("normalized zero vector is zero, never nan", function()
      local n = vec2(0, 0):normalized()
      assert.are.equal(0, n.x)
      assert.are.equal(0, n.y)
    end)

    it("dot and cross", function()
      local a, b = vec2(1, 2), vec2(3, 4)
      assert.near(11, a:dot(b), EPS)
      assert.near(1 * 4 - 2 * 3, a:cross(b), EPS)
      assert.is_true(vec2(1, 0):cross(vec2(0, 1)) > 0, "cross > 0 when b lies towards +y of a")
    end)

    it("dist and dist2", function()
      local a, b = vec2(1, 1), vec2(4, 5)
      assert.near(5, a:dist(b), EPS)
      assert.near(25, a:dist2(b), EPS)
      assert.near(a:dist(b), b:dist(a), EPS)
    end)

    it("angle runs from +x towards +y", function()
      assert.near(0, vec2(2, 0):angle(), EPS)
      assert.near(math.pi / 2, vec2(0, 3):angle(), EPS)
      assert.near(math.pi, math.abs(vec2(-1, 0):angle()), EPS)
      assert.near(-math.pi / 2, vec2(0, -1):angle(), EPS)
    end)

    it("rotated turns by radians towards +y", function()
      same(vec2(1, 0):rotated(math.pi / 2), 0, 1, 1e-12)
      same(vec2(2, 3):rotated(math.pi), -2, -3, 1e-12)
      assert.near(vec2(2, 3):len(), vec2(2, 3):rotated(1.234):len(), 1e-12)
    end)

    it("perp is (-y, x)", function()
      same(vec2(2, 3):perp(), -3, 2)
    end)

    it("truncated shortens long vectors and keeps short ones", function()
      local t = vec2(30, 40):truncated(10)
      same(t, 6, 8)
      same(vec2(3, 4):truncated(10), 3, 4)
      same(vec2(3, 4):truncated(0), 0, 0)
    end)

    it("lerp interpolates and extrapolates", function()
      local a, b = vec2(0, 10), vec2(10, 20)
      same(a:lerp(b, 0), 0, 10)
      same(a:lerp(b, 1), 10, 20)
      same(a:lerp(b, 0.25), 2.5, 12.5)
      same(a:lerp(b, 2), 20, 30)
    end)

    it("unpack returns x, y", function()
      local x, y = vec2(7, -8):unpack()
      assert.are.equal(7, x)
      assert.are.equal(-8, y)
      assert.are.equal(2, select("#", vec2(7, -8):unpack()))
    end)

    it("never change the receiver", function()
      local v = vec2(3, 4)
      local _ = v:normalized()
      local _ = v:rotated(1)
      local _ = v:truncated(1)
      same(v, 3, 4)
    end)

    it("reject bad arguments, naming the method", function()
      local v = vec2(1, 2)
      raises(function() local _ = v:dot(nil) end, "bad argument #1 to 'dot'")
      raises(function() local _ = v:dist("x") end, "bad argument #1 to 'dist'")
      raises(function() local _ = v:rotated(nil) end, "bad argument #1 to 'rotated'")
      raises(function() local _ = v:rotated(nan) end, "bad argument #1 to 'rotated'")
      raises(function() local _ = v:truncated(inf) end, "bad argument #1 to 'truncated'")
      raises(function() local _ = v:lerp(vec2(0, 0), nan) end, "bad argument #2 to 'lerp'")
    end)

    it("raise when the result is not finite", function()
      error_of(function() local _ = vec2(1e308, 0):lerp(vec2(-1e308, 0), 4) end)
    end)
  end)

  describe("from_angle", function()
    it("gives a unit vector by default", function()
      same(vec2.from_angle(0), 1, 0, 1e-12)
      same(vec2.from_angle(math.pi / 2), 0, 1, 1e-12)
    end)

    it("takes a length", function()
      same(vec2.from_angle(math.pi, 2), -2, 0, 1e-12)
      same(vec2.from_angle(math.pi / 4, math.sqrt(2)), 1, 1, 1e-12)
    end)

    it("round-trips with angle", function()
      for _, ang in ipairs { -2.5, -1, 0.3, 1.5, 3 } do
        assert.near(ang, vec2.from_angle(ang):angle(), 1e-12)
      end
    end)

    it("rejects non-finite input", function()
      error_of(function() local _ = vec2.from_angle(nan) end)
      error_of(function() local _ = vec2.from_angle(0, inf) end)
      error_of(function() local _ = vec2.from_angle(nil) end)
    end)
  end)

  describe("tables as points", function()
    it("accepts {x=, y=} and {x, y} wherever a vector is taken", function()
      local v = vec2(1, 2)
      assert.near(11, v:dot({ x = 3, y = 4 }), EPS)
      assert.near(11, v:dot({ 3, 4 }), EPS)
      assert.near(5, vec2(0, 0):dist({ 3, 4 }), EPS)
      assert.near(5, vec2(0, 0):dist({ x = 3, y = 4 }), EPS)
      same(vec2(0, 0):lerp({ 10, 20 }, 0.5), 5, 10)
      assert.near(-2, v:cross({ x = 0, y = -2 }), EPS)
    end)

    it("rejects tables without finite numbers", function()
      local v = vec2(1, 2)
      raises(function() local _ = v:dot({}) end, "bad argument #1 to 'dot'")
      raises(function() local _ = v:dot({ x = 1 }) end, "bad argument #1 to 'dot'")
      raises(function() local _ = v:dot({ 1, nan }) end, "bad argument #1 to 'dot'")
      raises(function() local _ = v:dot({ x = "a", y = 1 }) end, "bad argument #1 to 'dot'")
    end)
  end)
end)
