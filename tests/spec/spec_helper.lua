-- spec_helper.lua: the helpers every spec shares. Not a spec itself (busted
-- runs *_spec files only); a spec takes what it needs:
--
--   local H = require "spec_helper"
--   local raises, same, open_world = H.raises, H.same, H.open_world

local steer = require "steer"
-- busted's assert lives in the spec's environment, not in _G: fetch the
-- same luassert table busted hands the specs.
local assert = require "luassert"

local H = {}

-- Lua 5.1 and LuaJIT have no integer subtype: there an integral number is
-- what steer gives where 5.3+ give an integer (docs/API.md, "Lua versions").
-- math.type stands in for the specs that check it.
if not math.type then
  math.type = function(x) -- luacheck: ignore
    if type(x) ~= "number" then return nil end
    return x == math.floor(x) and "integer" or "float"
  end
end

-- The deep merge's data rules (a module's load-time baseline, "no change"
-- for code moved to other lines) are checked on Lua 5.4, the app's Lua;
-- 5.3 and LuaJIT merge functions and tables but not those (docs/API.md,
-- "Lua versions"). Specs of them are `H.it54`: pending elsewhere.
H.hotswap_data = _VERSION == "Lua 5.4"

-- Whether numbers have an integer subtype (5.3+; not 5.1 or LuaJIT).
H.has_integers = math.maxinteger ~= nil

-- Whether steer.reload can merge a reloaded module (not on Lua 5.1).
H.can_hotswap = not (_VERSION == "Lua 5.1" and not rawget(_G, "jit"))

H.EPS = 1e-9
H.nan, H.inf = 0 / 0, math.huge

-- Calls f, which must raise; returns the message.
function H.error_of(f)
  local ok, err = pcall(f)
  assert.is_false(ok, "expected an error, got none")
  return tostring(err)
end

-- f must raise with every plain substring given; returns the message.
function H.raises(f, ...)
  local msg = H.error_of(f)
  for i = 1, select("#", ...) do
    local s = select(i, ...)
    assert.is_truthy(msg:find(s, 1, true), ("error %q does not contain %q"):format(msg, s))
  end
  return msg
end

-- v (a vec2 or anything with .x and .y) is (x, y) within eps (default EPS).
function H.same(v, x, y, eps)
  assert.near(x, v.x, eps or H.EPS)
  assert.near(y, v.y, eps or H.EPS)
end

-- A world with no edges: 4000 x 4000 and seed 1 unless opts says otherwise.
function H.open_world(opts)
  opts = opts or {}
  return steer.world { width = opts.width or 4000, height = opts.height or 4000,
                       edges = opts.edges or "none", seed = opts.seed or 1 }
end

-- Inside a describe of steer.reload specs: on a Lua without hot reload (5.1)
-- registers the one spec that holds there instead (steer.reload of a loaded
-- module fails with the documented error, and the module is untouched) and
-- returns true: the caller then returns before its own specs.
function H.no_hotswap_here(it)
  if H.can_hotswap then return false end
  it("fails with the documented error on Lua 5.1 (no upvalue joining)", function()
    local base = os.tmpname()
    local name = "nohs" .. base:match("([%w_]+)$")
    local file = base .. "_" .. name .. ".lua"
    local dir = file:match("^(.*)/[^/]*$")
    local function write(v)
      local f = assert(io.open(dir .. "/" .. name .. ".lua", "w"))
      f:write("return { v = " .. v .. " }\n")
      f:close()
    end
    package.path = dir .. "/?.lua;" .. package.path
    write(1)
    local m = require(name)
    write(2)
    local ok, msg = steer.reload(name)
    os.remove(dir .. "/" .. name .. ".lua")
    os.remove(base)
    assert.is_nil(ok)
    assert.is_truthy(tostring(msg):find("hot reload needs Lua 5.2 or later, or LuaJIT", 1, true), msg)
    assert.are.equal(1, m.v)
  end)
  return true
end

return H
