-- string_diff.lua — the app's bounded string functions (BOUNDED, set by
-- string_diff.c) against stock Lua's, call by call: fixed cases for every
-- feature of the pattern language and every error, then random patterns,
-- subjects, start positions and replacements from a fixed seed. Results
-- (values, their count and types) and error messages must be identical.
--
-- usage: string_diff string_diff.lua [random cases, default 200000]

local cases = tonumber((...)) or 200000
local B = assert(BOUNDED, "run through string_diff") -- luacheck: ignore 113
local S = { find = string.find, match = string.match, gmatch = string.gmatch, gsub = string.gsub }

local function pack(...) return { n = select("#", ...), ... } end

local function show(r)
  local out = {}
  for i = 1, r.n do
    local v = r[i]
    out[i] = (math.type(v) or type(v)) .. ":" .. (type(v) == "string" and string.format("%q", v) or tostring(v))
  end
  return table.concat(out, ", ")
end

local function same(a, b)
  if a.n ~= b.n then return false end
  for i = 1, a.n do
    if a[i] ~= b[i] or math.type(a[i]) ~= math.type(b[i]) or type(a[i]) ~= type(b[i]) then return false end
  end
  return true
end

-- gmatch as a list of the results of every iteration (at most 200)
local function gm(f)
  return function(s, p, init)
    local it = f(s, p, init)
    local all = { n = 0 }
    for _ = 1, 200 do
      local r = pack(it())
      all.n = all.n + 1
      all[all.n] = show(r)
      if r[1] == nil then break end
    end
    return table.concat(all, " | ")
  end
end

-- The bounded functions run installed in the string table, as in the app,
-- so that argument errors name them the same way ('string.find').
local function install(t)
  for k, f in pairs(S) do string[k] = t[k] or f end -- luacheck: ignore 122
end

local compared, errors, failures = 0, 0, 0
local function check(name, fs, fb, ...)
  local a = pack(pcall(fs, ...))
  install(B)
  local b = pack(pcall(fb, ...))
  install(S)
  compared = compared + 1
  if not a[1] then errors = errors + 1 end
  if not same(a, b) then
    failures = failures + 1
    if failures <= 20 then
      print(string.format("DIFF %s(%s)\n  stock:   %s\n  bounded: %s", name, show(pack(...)), show(a), show(b)))
    end
  end
end

local function all_functions(s, p, init, repl, n)
  check("find", S.find, B.find, s, p, init)
  check("find plain", S.find, B.find, s, p, init, true)
  check("match", S.match, B.match, s, p, init)
  check("gmatch", gm(S.gmatch), gm(B.gmatch), s, p, init)
  check("gsub", S.gsub, B.gsub, s, p, repl, n)
end

-- fixed cases: every feature and every error message
local fixed = {
  { "hello world", "o w" }, { "hello world", "l+" }, { "hello world", "^h" }, { "hello world", "d$" },
  { "hello", "" }, { "", "" }, { "", "a*" }, { "abc", "^" }, { "abc", "$" }, { "a$b", "$b" },
  { "a^b", "^b" }, { "a^b", "a^" }, { "x = 10, y = 20", "(%w+) = (%w+)" }, { "abc", "()" },
  { "abc", "()b()" }, { "THE (quick) fox", "%((%a+)%)" }, { "f(a(b)c)d", "%b()" }, { "aXb", "%bXb" },
  { "THE (quick) fox", "%f[%a]%a+" }, { "hello", "%f[%l]" }, { "x", "%f[%z]" }, { "abcabc", "(abc)%1" },
  { "abab", "(a)(b)%1%2" }, { "aaa", "a-" }, { "aaa", "a-$" }, { "aaab", "a-b" }, { "aaa", "a?a?a?a?" },
  { "[]]", "[]]" }, { "a]", "[^]]" }, { "a-b", "[a-]" }, { "a-b", "[-a]" }, { "%", "[%%]" },
  { "a.b", "%." }, { "a1_ ", "[%w_]+" }, { "x\0y", "%z" }, { "x\0y", "\0" }, { "x\0y", "[\0]" },
  { "\200\255", "[\128-\255]+" }, { "abc", "%" }, { "abc", "[a" }, { "abc", "[]" }, { "abc", "[^]" },
  { "abc", "%f" }, { "abc", "%fa" }, { "abc", "%b" }, { "abc", "%ba" }, { "abc", "%1" }, { "abc", "(a%1)" },
  { "abc", "%0" }, { "abc", "a)" }, { "abc", "(a" }, { "abc", "(()" }, { "abc", "((a)(b))" },
  { "abc", string.rep("(", 33) .. "a" .. string.rep(")", 33) },
  { "abc", string.rep("a?", 300) }, { string.rep("a", 300), string.rep("a?", 250) },
  { "  trim  ", "^%s*(.-)%s*$" }, { "key=val", "(%w+)=(%w+)" }, { "1.5e10", "^[+-]?%d+%.?%d*[eE]?%d*$" },
  { "AbC", "%u%l%u" }, { "AbC", "%U+" }, { "\t\n", "%c+" }, { "a,b;c", "%p" }, { "ff0A", "%x+" }, { "a b", "%g+" },
  { "a b", "%S+" }, { "a1", "%D+" }, { "a1", "%W" }, { "abc", "[%a-z]" }, { "a-z", "[%a-z]+" },
}
local repls = { "%0", "<%1>", "%2", "%%", "%", "%x", "x%", "", "[%1%1]", 7, 1.5 }
for _, c in ipairs(fixed) do
  for _, init in ipairs({ 1, 2, 0, -1, -2, 3, 10, -10, 1.0 }) do
    for _, repl in ipairs(repls) do
      all_functions(c[1], c[2], init, repl, nil)
    end
    all_functions(c[1], c[2], init, function(...) return select("#", ...) > 1 and table.concat({ ... }, "+") end, 2)
    all_functions(c[1], c[2], init, { a = "A", hello = false, b = 3, [""] = "E", abc = {} }, nil)
  end
end
-- argument errors and odd arguments
for _, args in ipairs({ { nil, "a" }, { "a", nil }, { {}, "a" }, { "a", "a", "x" }, { "a", "a", 1.5 },
                        { 12345, "3" }, { "a", 4 }, { "aaa", "a", 1, nil }, { "aaa", "a", math.mininteger },
                        { "aaa", "a", math.maxinteger } }) do
  check("find", S.find, B.find, table.unpack(args, 1, 3))
  check("match", S.match, B.match, table.unpack(args, 1, 3))
  check("gmatch", gm(S.gmatch), gm(B.gmatch), table.unpack(args, 1, 3))
end
for _, args in ipairs({ { "abc", "b", nil }, { "abc", "b", true }, { "abc", "b", "x", "2" }, { "abc", "b", "x", 1.5 },
                        { "abc", "", "-", 2 }, { "abc", "", "-", 0 }, { "abc", "", "-", -1 },
                        { "abc", "b", function() return {} end }, { "abc", "b", function() return 2.0 end } }) do
  check("gsub", S.gsub, B.gsub, table.unpack(args, 1, 4))
end
-- rep, concat and sort: the stock functions behind a size cap and a charge
local T = { concat = table.concat, sort = table.sort }
local function check_lib(lib, name, stock, ...)
  local a = pack(pcall(stock[name], ...))
  lib[name] = B[name] -- luacheck: ignore 122
  local b = pack(pcall(B[name], ...))
  lib[name] = stock[name] -- luacheck: ignore 122
  compared = compared + 1
  if not a[1] then errors = errors + 1 end
  if not same(a, b) then
    failures = failures + 1
    print(string.format("DIFF %s(%s)\n  stock:   %s\n  bounded: %s", name, show(pack(...)), show(a), show(b)))
  end
end
local SR = { rep = string.rep, upper = string.upper, lower = string.lower, reverse = string.reverse }
for _, name in ipairs({ "upper", "lower", "reverse" }) do
  for _, args in ipairs({ { "aBc1\0\200" }, { "" }, { 12.5 }, { nil }, { {} } }) do
    check_lib(string, name, SR, args[1])
  end
end
for _, args in ipairs({ { "ab", 3 }, { "ab", 3, "," }, { "", 5 }, { "", 1000000 }, { "", 5, "," },
                        { "x", 0 }, { "x", -1 }, { "x", 2, "" }, { nil, 2 },
                        { "x", "y" }, { "x", 1.5 }, { 12, 2, 3 } }) do
  check_lib(string, "rep", SR, table.unpack(args, 1, 3))
end
local mt = setmetatable({}, { __index = function(_, i) if i < 4 then return "m" .. i end end })
for _, args in ipairs({ { { "a", "b", "c" } }, { { "a", "b", "c" }, ", " }, { { 1, 2.5, "x" }, "-", 2 },
                        { { "a", "b", "c" }, "", 2, 3 }, { { "a", "b", "c" }, "", 3, 2 }, { { "a", {}, "c" } },
                        { { "a", nil, "c" }, "", 1, 3 }, { {}, "x" }, { nil }, { { "a" }, {} }, { { "a" }, "", "x" },
                        { mt, "+", 1, 3 }, { mt, "+", 1, 5 }, { { "a", "b" }, 5 } }) do
  check_lib(table, "concat", T, table.unpack(args, 1, 4))
end
local function sorted(t, f) table.sort(t, f) return table.concat(t, " ") end
for _, args in ipairs({ { { 3, 1, 2 } }, { { "b", "a", "c" } }, { { 3, 1, 2 }, function(a, b) return a > b end },
                        { { 1, "a" } }, { {} }, { nil }, { { 1, 2 }, 3 } }) do
  local t1, t2 = {}, {}
  for k, v in pairs(args[1] or {}) do t1[k], t2[k] = v, v end
  check_lib(table, "sort", T, args[1] and t1 or nil, args[2])
  if args[1] and pcall(sorted, t2, args[2]) then
    local ok, got = pcall(B.sort, t1, args[2])
    compared = compared + 1
    if not ok or table.concat(t1, " ") ~= table.concat(t2, " ") then
      failures = failures + 1
      print("DIFF sort order", got, table.concat(t1, " "), table.concat(t2, " "))
    end
  end
end
local fixed_count = compared

-- random cases from a fixed seed
math.randomseed(20260115)
local rnd = math.random
local alphabet = { "a", "b", "c", "a", "b", "A", "1", "2", " ", "_", ".", "(", ")", "%", "-", "[", "]", "^", "$",
                   "\0", "\200" }
local items = {
  "a", "b", "c", "a", "b", ".", "%a", "%d", "%s", "%w", "%p", "%c", "%l", "%u", "%x", "%g", "%A", "%D", "%S",
  "%W", "%P", "%L", "%U", "%X", "%.", "%%", "%(", "%[", "[ab]", "[^a]", "[a-c]", "[%d_]", "[]a]", "[^]a]", "[%a-]",
  "[-a]", "[a-]", "[%w%s]", "[^%s]", "%b()", "%bab", "%f[%w]", "%f[%W]", "%f[a]", "%1", "%2", "(", ")", "()",
  "$", "^", "\0", "[", "]", "%", "-", "*", "?", "+",
}
local quant = { "", "", "", "*", "+", "-", "?" }
local function random_pattern()
  local parts = {}
  if rnd(6) == 1 then parts[#parts + 1] = "^" end
  local open = 0
  for _ = 1, rnd(0, 7) do
    local r = rnd(12)
    if r == 1 then
      parts[#parts + 1] = "("; open = open + 1
    elseif r == 2 and open > 0 then
      parts[#parts + 1] = ")"; open = open - 1
    else
      local it = items[rnd(#items)]
      parts[#parts + 1] = it
      if #it == 1 or it:sub(1, 1) == "[" or it:sub(1, 1) == "%" and #it == 2 then
        parts[#parts + 1] = quant[rnd(#quant)]
      end
    end
  end
  while open > 0 and rnd(3) > 1 do parts[#parts + 1] = ")"; open = open - 1 end
  if rnd(6) == 1 then parts[#parts + 1] = "$" end
  return table.concat(parts)
end
local function random_subject()
  local t = {}
  for i = 1, rnd(0, 16) do t[i] = alphabet[rnd(#alphabet)] end
  return table.concat(t)
end
local random_repls = { "%0", "%1", "%2", "%%", "<%1|%0>", "%", "%z", "x", "" }
local tbl = { a = "A", b = false, ["1"] = 1, [""] = "" }
local function fn(...) if select("#", ...) == 0 then return nil end return (select(1, ...)) .. "!" end
for _ = 1, cases do
  local s, p = random_subject(), random_pattern()
  local init = rnd(5) == 1 and rnd(-20, 20) or nil
  local r = rnd(10)
  local repl = r <= 6 and random_repls[rnd(#random_repls)] or r <= 8 and tbl or fn
  local n = rnd(8) == 1 and rnd(0, 3) or nil
  all_functions(s, p, init, repl, n)
end

print(string.format(
  "string_diff: %d comparisons (%d fixed, %d random over %d random cases), %d of them errors; %d differences",
  compared, fixed_count, compared - fixed_count, cases, errors, failures))
if failures > 0 then error(failures .. " differences", 0) end
