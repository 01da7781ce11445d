-- steer.utility — utility selection for brains, pure Lua.
--
--   local utility = require "steer.utility"
--   local curve = utility.curve
--   local choice = utility.new({
--       { name = "eat", considerations = {
--             { input = function(self) return self.hunger end, range = { 0, 100 },
--               curve = curve.quadratic(2) },
--             { input = function(self, agent) return agent.speed end, range = { 0, 150 },
--               curve = curve.linear(-1, 1) } },
--         run = function(self, agent, dt) ... end },
--       { name = "rest", weight = 0.5, considerations = { ... }, enter = ..., exit = ... },
--   }, { bonus = 0.1 })
--   function brain.update(self, agent, dt) choice:update(self, agent, dt) end
--
-- An option's score is its weight times the product of its considerations'
-- scores, each the curve of its input mapped from range to 0..1 (clamped),
-- with Dave Mark's compensation for the number of considerations (a
-- product of many factors below 1 would favour options with few). The
-- best score wins, options earlier in the list winning ties; hysteresis
-- keeps the current option against near-equal challengers: `bonus` is
-- added to the current option's score, `margin` is how much a challenger
-- must beat it by. State in self.utility (self[opts.key]): current (name),
-- time (seconds in it), scores (name -> last score), switches (count).

local utility = {}
utility.__index = utility

local curve = {}
utility.curve = curve

local function clamp01(x)
    if x < 0 then return 0 elseif x > 1 then return 1 end
    return x
end

local function num(n, fname, v)
    if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
        error(("bad argument #%d to '%s' (finite number expected, got %s)"):format(
            n, fname, type(v) == "number" and tostring(v) or type(v)), 3)
    end
    return v
end

--- y = m x + b (default m = 1, b = 0).
function curve.linear(m, b)
    m, b = num(1, "linear", m or 1), num(2, "linear", b or 0)
    return function(x) return clamp01(m * x + b) end
end

--- y = m x^k + b (default k = 2, m = 1, b = 0); k > 0.
function curve.quadratic(k, m, b)
    k, m, b = num(1, "quadratic", k or 2), num(2, "quadratic", m or 1), num(3, "quadratic", b or 0)
    if k <= 0 then error("bad argument #1 to 'quadratic' (exponent must be > 0)", 2) end
    return function(x) return clamp01(m * x ^ k + b) end
end

--- y = 1 / (1 + e^(-k (x - x0))) (default k = 10, x0 = 0.5): an S from 0 to 1.
function curve.logistic(k, x0)
    k, x0 = num(1, "logistic", k or 10), num(2, "logistic", x0 or 0.5)
    return function(x) return 1 / (1 + math.exp(-k * (x - x0))) end
end

--- y = 0 below threshold, 1 from it on (default 0.5); low, high replace 0 and 1.
function curve.step(threshold, low, high)
    threshold = num(1, "step", threshold or 0.5)
    low, high = clamp01(num(2, "step", low or 0)), clamp01(num(3, "step", high or 1))
    return function(x) if x < threshold then return low end return high end
end

--- y = 1 - x: the more, the worse.
function curve.inverse()
    return function(x) return 1 - x end
end

--- y = a constant (clamped to 0..1).
function curve.constant(c)
    c = clamp01(num(1, "constant", c))
    return function() return c end
end

-- ------------------------------------------------------------------ building

local function fail(msg)
    error({ bad = "bad argument #" .. msg })
end

local function check_consideration(o, j, c)
    local where = ("option '%s', consideration %d"):format(o.name, j)
    if type(c) ~= "table" then fail(("1 to 'new' (%s: table expected)"):format(where)) end
    if type(c.input) ~= "function" then fail(("1 to 'new' (%s: input must be a function)"):format(where)) end
    if c.curve ~= nil and type(c.curve) ~= "function" then
        fail(("1 to 'new' (%s: curve must be a function)"):format(where))
    end
    local r = c.range
    if r ~= nil and not (type(r) == "table" and type(r[1]) == "number" and type(r[2]) == "number"
        and r[1] == r[1] and r[2] == r[2] and r[1] ~= r[2] and math.abs(r[1]) < math.huge
        and math.abs(r[2]) < math.huge) then
        fail(("1 to 'new' (%s: range must be { lo, hi }, two different finite numbers)"):format(where))
    end
end

local function check_option(i, o, seen)
    if type(o) ~= "table" then fail(("1 to 'new' (option %d: table expected)"):format(i)) end
    if type(o.name) ~= "string" or o.name == "" then
        fail(("1 to 'new' (option %d: name must be a string)"):format(i))
    end
    if seen[o.name] then fail(("1 to 'new' (two options named '%s')"):format(o.name)) end
    seen[o.name] = true
    local w = o.weight
    if w ~= nil and not (type(w) == "number" and w >= 0 and w < math.huge) then
        fail(("1 to 'new' (option '%s': weight must be a finite number >= 0)"):format(o.name))
    end
    if type(o.considerations) ~= "table" then
        fail(("1 to 'new' (option '%s': considerations must be a table)"):format(o.name))
    end
    for j, c in ipairs(o.considerations) do check_consideration(o, j, c) end
    for _, h in ipairs { "run", "enter", "exit" } do
        if o[h] ~= nil and type(o[h]) ~= "function" then
            fail(("1 to 'new' (option '%s': %s must be a function)"):format(o.name, h))
        end
    end
end

local function check_opts(opts)
    if opts == nil then return {} end
    if type(opts) ~= "table" then fail("2 to 'new' (table expected)") end
    for _, k in ipairs { "bonus", "margin" } do
        local v = opts[k]
        if v ~= nil and not (type(v) == "number" and v >= 0 and v < math.huge) then
            fail(("2 to 'new' (%s must be a finite number >= 0)"):format(k))
        end
    end
    if opts.key ~= nil and (type(opts.key) ~= "string" or opts.key == "") then
        fail("2 to 'new' (key must be a non-empty string)")
    end
    return opts
end

local function build(options, opts)
    if type(options) ~= "table" or #options == 0 then fail("1 to 'new' (non-empty list of options expected)") end
    local seen = {}
    for i, o in ipairs(options) do check_option(i, o, seen) end
    opts = check_opts(opts)
    return setmetatable({ options = options, bonus = opts.bonus or 0, margin = opts.margin or 0,
                          key = opts.key or "utility" }, utility)
end

--- utility.new(options [, opts]): opts.bonus, opts.margin (hysteresis,
--- default 0), opts.key (the field of self, default "utility").
function utility.new(options, opts)
    local ok, r = pcall(build, options, opts)
    if ok then return r end
    error(type(r) == "table" and r.bad or r, 2)
end

-- ------------------------------------------------------------------ scoring

--- The score of option o for this agent (not counting hysteresis).
function utility.score(o, self, agent)
    local cons = o.considerations
    local n = #cons
    local score = o.weight or 1
    if n == 0 or score == 0 then return score end
    local makeup = 1 - 1 / n
    for j = 1, n do
        local c = cons[j]
        local x = c.input(self, agent)
        if type(x) ~= "number" or x ~= x then
            error(("steer.utility: option '%s', consideration %d: input returned %s (a number expected)")
                :format(o.name, j, tostring(x)), 0)
        end
        local r = c.range
        if r then x = (x - r[1]) / (r[2] - r[1]) end
        x = clamp01(x)
        local s = c.curve and c.curve(x) or x
        s = clamp01(s ~= s and 0 or s)
        score = score * (s + (1 - s) * makeup * s)
        if score == 0 then return 0 end
    end
    return score
end

local function state_of(m, self)
    local S = self[m.key]
    if type(S) ~= "table" then
        S = { time = 0, switches = 0, scores = {} }
        self[m.key] = S
    end
    return S
end

--- m:select(self, agent): scores every option, takes the best with
--- hysteresis, calls exit/enter on a change; returns the option's name and
--- its score.
function utility.select(m, self, agent)
    if type(self) ~= "table" then
        error(("bad argument #1 to 'select' (table expected, got %s)"):format(type(self)), 2)
    end
    local S = state_of(m, self)
    local scores = S.scores
    local best, best_score, current, current_score
    for _, o in ipairs(m.options) do
        local s = utility.score(o, self, agent)
        scores[o.name] = s
        if o.name == S.current then
            current, current_score = o, s + m.bonus
            s = current_score
        end
        if best == nil or s > best_score then best, best_score = o, s end
    end
    if current and best ~= current and best_score <= current_score + m.margin then
        best = current
    end
    if best ~= current then
        if current and current.exit then current.exit(self, agent) end
        S.previous, S.current, S.time = S.current, best.name, 0
        S.switches = S.switches + 1
        if best.enter then best.enter(self, agent) end
    end
    return best.name, scores[best.name]
end

--- m:update(self, agent, dt): select, then run the chosen option's
--- run(self, agent, dt); returns the option's name.
function utility.update(m, self, agent, dt)
    if type(dt) ~= "number" or not (dt >= 0 and dt < math.huge) then
        error("bad argument #3 to 'update' (dt must be a finite number >= 0)", 2)
    end
    local name = m:select(self, agent)
    local S = self[m.key]
    S.time = S.time + dt
    for _, o in ipairs(m.options) do
        if o.name == name then
            if o.run then o.run(self, agent, dt) end
            break
        end
    end
    return name
end

return utility
