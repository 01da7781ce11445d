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

return H
