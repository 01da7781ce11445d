-- meta_spec.lua: types/steer.lua (the LuaLS annotations) documents every
-- name the bindings register, and nothing they do not.
--
-- The names come from the running module, not from a list kept here: the
-- steer table, the steer.vec2 helper table, and for each userdata type the
-- name table its __index closure looks up (methods as functions, fields as
-- integer codes). A binding that gains a method or field without its
-- annotation fails this spec.

local steer = require "steer"

-- types/steer.lua relative to this file (busted may run from anywhere);
-- STEER_TYPES_FILE overrides it.
local function types_path()
  local env = os.getenv("STEER_TYPES_FILE")
  if env and env ~= "" then return env end
  local src = debug.getinfo(1, "S").source:gsub("^@", "")
  local dir = src:match("^(.*)/[^/]*$") or "."
  return dir .. "/../../types/steer.lua"
end

local function read(path)
  local f = assert(io.open(path, "r"))
  local s = f:read("*a")
  f:close()
  return s
end

-- Parses annotation text into { classes = { [class] = { fields = set } },
-- functions = { [local] = set } }. A class block is its ---@class line and
-- the comment lines right after it.
local function parse(text)
  local doc = { classes = {}, functions = {} }
  local current
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    local class = line:match("^%-%-%-@class%s+([%w_%.]+)")
    if class then
      current = { fields = {} }
      doc.classes[class] = current
    elseif current and line:match("^%-%-%-") then
      local field = line:match("^%-%-%-@field%s+([%w_]+)%??%s")
      if field then current.fields[field] = true end
    else
      current = nil
    end
    local owner, name = line:match("^function%s+([%w_]+)[:%.]([%w_]+)%s*%(")
    if owner then
      doc.functions[owner] = doc.functions[owner] or {}
      doc.functions[owner][name] = true
    end
  end
  return doc
end

-- The name table behind a userdata type's __index closure (its first upvalue).
-- A world's __index is a table of its methods whose own __index is that
-- closure (bindings/world.c).
local function names_of(value)
  local mt = debug.getmetatable(value)
  local index = mt and mt.__index
  if type(index) == "table" then
    index = (debug.getmetatable(index) or {}).__index
  end
  assert(type(index) == "function", "no __index closure on " .. tostring(value))
  local upname, names = debug.getupvalue(index, 1)
  assert(upname ~= nil and type(names) == "table", "__index has no name table")
  return names
end

-- Every registered name, as { class =, owner =, names = { [name] = kind } },
-- kind being "function" or "field".
local function registered()
  local world = steer.world { width = 100, height = 100 }
  local agent = world:spawn {}
  local path = steer.path { { 0, 0 }, { 1, 0 } }
  local groups = {}
  local function add(class, owner, tbl)
    local names = {}
    for k, v in pairs(tbl) do
      if type(k) == "string" and not k:match("^__") then
        names[k] = type(v) == "function" and "function" or "field"
      end
    end
    groups[#groups + 1] = { class = class, owner = owner, names = names }
  end
  add("steer", "steer", steer)
  add("steer.vec2lib", "vec2lib", steer.vec2)
  -- a steer.vec2 userdata on every backend (a behaviour outside a step is
  -- the C binding's; LuaJIT's FFI vec2 has these names, ffi_spec.lua)
  add("steer.vec2", "vec2", names_of(agent:seek { 1, 0 }))
  add("steer.world", "world", names_of(world))
  add("steer.agent", "agent", names_of(agent))
  add("steer.path", "path", names_of(path))
  local nav = world:navgrid()
  add("steer.navgrid", "navgrid", names_of(nav))
  add("steer.flowfield", "flowfield", names_of(nav:flow_field { 50, 50 }))
  return groups
end

-- Names registered but not documented, as "class.name" strings.
local function missing(doc, groups)
  local out = {}
  for _, g in ipairs(groups) do
    local class = doc.classes[g.class]
    local fns = doc.functions[g.owner] or {}
    for name in pairs(g.names) do
      -- a function or a field annotation will do: steer.vec2 is a callable
      -- table, and the app replaces the function steer.mouse
      if not (fns[name] or (class and class.fields[name])) then
        out[#out + 1] = g.class .. "." .. name
      end
    end
  end
  table.sort(out)
  return out
end

-- Methods documented but not registered (stale annotations).
local function stale(doc, groups)
  local out = {}
  for _, g in ipairs(groups) do
    for name in pairs(doc.functions[g.owner] or {}) do
      if not g.names[name] then out[#out + 1] = g.owner .. "." .. name end
    end
  end
  table.sort(out)
  return out
end

describe("types/steer.lua", function()
  -- Lua 5.1's debug.getupvalue cannot read a C function's upvalues, where
  -- the name tables live: the other Luas check this (it is not Lua-specific).
  if _VERSION == "Lua 5.1" and not rawget(_G, "jit") then
    pending("reads the bindings' name tables through debug.getupvalue (not on Lua 5.1)")
    return
  end
  local text = read(types_path())
  local doc = parse(text)
  local groups = registered()

  it("declares every class the bindings expose", function()
    for _, g in ipairs(groups) do
      assert.is_truthy(doc.classes[g.class], "no ---@class " .. g.class)
    end
  end)

  it("finds a sensible number of registered names", function()
    -- guards the walk itself: an empty walk would make the next test vacuous
    local counts = {}
    for _, g in ipairs(groups) do
      local n = 0
      for _ in pairs(g.names) do n = n + 1 end
      counts[g.class] = n
    end
    assert.is_true(counts["steer.agent"] >= 19 + 21, "agent: 19 methods and 21 fields expected")
    assert.is_true(counts["steer.world"] >= 11 + 6, "world: 11 methods and 6 fields expected")
    assert.is_true(counts["steer.vec2"] >= 13 + 2, "vec2: 13 methods and x, y expected")
    assert.is_true(counts["steer.path"] >= 3, "path: points, loop, radius expected")
    assert.is_true(counts["steer"] >= 6, "steer: version, vec2, world, path, mouse, reload expected")
    assert.are.equal("function", groups[5].names.seek)
    assert.are.equal("field", groups[5].names.pos)
  end)

  it("documents every registered function and field", function()
    local m = missing(doc, groups)
    assert.are.same({}, m, "undocumented: " .. table.concat(m, ", "))
  end)

  it("documents no method the bindings lack", function()
    local s = stale(doc, groups)
    assert.are.same({}, s, "documented but not registered: " .. table.concat(s, ", "))
  end)

  it("would notice a missing annotation", function()
    -- drop one method and one field from the text: the check must name both
    local cut = text:gsub("\nfunction agent:hide%(", "\nfunction agent_gone:hide(")
                    :gsub("\n%-%-%-@field pos steer%.vec2\n", "\n---\n")
    local m = missing(parse(cut), groups)
    local set = {}
    for _, name in ipairs(m) do set[name] = true end
    assert.is_true(set["steer.agent.hide"], "a removed method went unnoticed")
    assert.is_true(set["steer.agent.pos"], "a removed field went unnoticed")
  end)
end)

-- The pure-Lua decision modules (scripts/steer/): types/steer/<name>.lua
-- annotates every function each one exports, and nothing it lacks.
describe("types/steer/bt.lua, fsm.lua, utility.lua", function()
  local dir = types_path():match("^(.*)/[^/]*$")
  -- "owner.name" for every `function owner.name(` / `owner:name(` /
  -- `owner.sub.name(` declared in the file
  local function declared(file)
    local out = {}
    for line in read(dir .. "/steer/" .. file .. ".lua"):gmatch("[^\n]+") do
      local name = line:match("^function%s+([%w_%.:]+)%s*%(")
      if name then out[(name:gsub(":", "."))] = true end
    end
    return out
  end
  -- the same names from the module itself
  local function exported(owner, t, out)
    out = out or {}
    for k, v in pairs(t) do
      if type(k) == "string" and not k:match("^__") then
        if type(v) == "function" then out[owner .. "." .. k] = true
        elseif type(v) == "table" and getmetatable(v) == nil then exported(owner .. "." .. k, v, out) end
      end
    end
    return out
  end
  local function diff(a, b)
    local out = {}
    for k in pairs(a) do if not b[k] then out[#out + 1] = k end end
    table.sort(out)
    return out
  end

  for _, m in ipairs { "bt", "fsm", "utility" } do
    it("steer." .. m, function()
      local mod = require("steer." .. m)
      local have = exported(m, mod)
      if m == "bt" then
        have["bt.repeat"] = nil -- the alias of bt.repeat_ (a keyword cannot be declared)
        have["node.tick"] = true -- the method of every node
        assert.are.equal(mod.repeat_, mod["repeat"])
      end
      local doc = declared(m)
      local n = 0
      for _ in pairs(have) do n = n + 1 end
      assert.is_true(n >= 8, "too few names exported by steer." .. m)
      assert.are.same({}, diff(have, doc), "undocumented in types/steer/" .. m .. ".lua")
      assert.are.same({}, diff(doc, have), "documented but not in steer." .. m)
    end)
  end
end)
