-- redteam.lua — the escapes a red-team pass tried on the sandbox, as a table
-- of attempts and expected results. tests/app/test_redteam.sh runs each
-- attempt in its own headless run and prints one line per attempt by name:
--
--   steer --headless redteam.lua -- list      name, place and expectation of each
--   steer --headless redteam.lua -- NAME      runs one attempt
--
-- place: "load" runs the attempt in scene.load; "brain" in a brain's update
-- next to a brain that keeps counting (the world must keep stepping);
-- "update" in scene.update; "ticks" in every scene.update, unprotected (a
-- creep that grows each tick until the memory cap stops it). An attempt a script can catch prints
-- "RESULT <name> error: <message>" or "RESULT <name> returned: <value>"; one
-- it cannot (the budget, the memory cap) stops its callback, and the app
-- prints "runtime error: ...". expect is a plain substring of that outcome;
-- options, when given, are added to the command line (--trust...).

local steer = require "steer"

local scene = {}

scene.config = { width = 200, height = 200, seed = 4 }

local function here()
    return debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$")
end

local BUDGET = "instruction budget exceeded"
local OUTSIDE = "is outside the script folders (the sandbox allows only those)"
local bomb_subject = ("a"):rep(3e5)

-- What the creeps keep from tick to tick.
local keep = {}

-- { name, place, expected substring, function(world) ... end [, options] }
local attempts = {
    -- C-side runaway work (issue 15, hole 1)
    { "pattern_bomb_find", "load", BUDGET .. " (in string.find)",
      function() return pcall(string.find, bomb_subject, ".-.-.-.-.-b") end },
    { "pattern_bomb_match", "load", BUDGET .. " (in string.match)",
      function() return pcall(string.match, bomb_subject, "(.-)(.-)(.-)(.-)b") end },
    { "pattern_bomb_gmatch", "load", BUDGET .. " (in string.gmatch)",
      function() for _ in bomb_subject:gmatch(".-.-.-.-b") do end end },
    { "pattern_bomb_gsub", "load", BUDGET .. " (in string.gsub)",
      function() return bomb_subject:gsub("a*a*a*a*b", "") end },
    { "pattern_bomb_method", "load", BUDGET .. " (in string.find)",
      function() return pcall(function() return bomb_subject:find("(.-)%1(.-)%2b") end) end },
    { "pattern_bomb_brain", "brain", BUDGET .. " (in string.find)",
      function() return pcall(string.find, bomb_subject, ".-.-.-.-.-b") end },
    { "pattern_bomb_update", "update", BUDGET .. " (in string.find)",
      function() return pcall(string.find, bomb_subject, ".-.-.-.-.-b") end },
    { "pattern_bomb_trusted", "load", BUDGET .. " (in string.find)",
      function() return pcall(string.find, bomb_subject, ".-.-.-.-.-b") end, "--trust" },
    { "rep_to_memory_cap", "load", "string.rep: result too large",
      function() return #string.rep("x", 2 ^ 31) end },
    { "rep_with_separator", "load", "string.rep: result too large",
      function() return #string.rep("", 2 ^ 40, "xy") end },
    { "concat_to_memory_cap", "load", "table.concat: result too large",
      function()
          local t, s = {}, ("x"):rep(4096)
          for i = 1, 20000 do t[i] = s end
          return #table.concat(t)
      end },
    { "sort_huge_table", "load", BUDGET .. " (in table.sort)",
      function()
          local t = { 1 } -- 4M elements in 22 doublings, with few instructions
          while #t < 4e6 do table.move(t, 1, #t, #t + 1) end
          table.sort(t)
      end, "--memory 512" },
    { "slow_c_work", "load", BUDGET .. " (over 1 s of wall time)",
      function()
          local s = ("x"):rep(1e6)
          for _ = 1, 1e9 do local _ = s .. "a" end
      end, "--time-limit 1" },
    { "pattern_fine", "load", "returned: 3",
      function() return (("key = value"):find("(%w+)%s*=%s*(%w+)")) + 2 end },
    -- reads outside the script folders (hole 2)
    { "read_passwd", "load", "'/etc/passwd' " .. OUTSIDE,
      function() return io.open("/etc/passwd"):read("l") end },
    { "lines_passwd", "load", "'/etc/passwd' " .. OUTSIDE,
      function() return io.lines("/etc/passwd")() end },
    { "read_ssh_key", "load", OUTSIDE,
      function() return io.open("/root/.ssh/id_rsa", "r") end },
    { "read_dotdot", "load", OUTSIDE,
      function() return io.open(here() .. "/../../../../../../../../etc/passwd"):read("l") end },
    { "read_proc_environ", "load", "'/proc/self/environ' " .. OUTSIDE,
      function() return io.open("/proc/self/environ"):read("a") end },
    { "read_own_folder", "load", "returned: -- redteam.lua",
      function() return io.open(here() .. "/redteam.lua"):read("l") end },
    { "read_missing_in_folder", "load", "returned: nil",
      function() return io.open(here() .. "/no_such_file.txt") end },
    { "read_trusted", "load", "returned: root:", function() return io.open("/etc/passwd"):read("l") end, "--trust" },
    -- shared metatables (hole 3)
    { "string_metatable_write", "load", "cannot change the metatable of strings",
      function() getmetatable("").__index = {} end },
    { "string_metatable_rawset", "load", "bad argument #1 to 'rawset' (table expected, got userdata)",
      function() rawset(getmetatable(""), "__index", {}) end },
    { "string_metatable_replace", "load", "bad argument #1 to 'setmetatable' (table expected, got userdata)",
      function() setmetatable(getmetatable(""), {}) end },
    { "string_methods_intact", "load", "returned: ABC", function() return ("abc"):upper() end },
    { "file_metatable_write", "load", "cannot change the metatable of files",
      function() getmetatable(io.stdout).__index = {} end },
    { "file_methods_hidden", "load", "attempt to index a nil value (field '__index')",
      function() getmetatable(io.stdout).__index.write = nil end },
    { "vec2_metatable_write", "load", "cannot change the metatable of steer.vec2",
      function() getmetatable(steer.vec2(1, 2)).__add = function() return 0 end end },
    { "vec2_table_metatable_write", "load", "cannot change the metatable of steer.vec2 (the table)",
      function() getmetatable(steer.vec2).__call = nil end },
    { "world_metatable_write", "load", "cannot change the metatable of steer.world",
      function(world) getmetatable(world).__index = nil end },
    { "world_gc_by_hand", "load", "attempt to call a nil value (field '__gc')",
      function(world) getmetatable(world).__gc(world) end },
    { "agent_metatable_write", "load", "cannot change the metatable of steer.agent",
      function(world) getmetatable(world:spawn{}).__newindex = nil end },
    { "path_metatable_write", "load", "cannot change the metatable of steer.path",
      function() getmetatable(steer.path{ { 0, 0 }, { 1, 1 } }).__index = nil end },
    { "obstacle_metatable_write", "load", "cannot change the metatable of steer.obstacle",
      function(world) getmetatable(world:add_obstacle{ pos = { 0, 0 }, radius = 1 }).__index = nil end },
    -- environment and collector (hole 4)
    { "os_getenv", "load", "'os.getenv' is disabled in the sandbox", function() return os.getenv("HOME") end },
    { "collectgarbage_stop", "load", "collectgarbage('stop') is disabled in the sandbox",
      function() collectgarbage("stop") end },
    { "collectgarbage_collect", "load", "collectgarbage('collect') is disabled in the sandbox",
      function() collectgarbage() end },
    { "collectgarbage_setpause", "load", "collectgarbage('setpause') is disabled in the sandbox",
      function() collectgarbage("setpause", 1000) end },
    { "collectgarbage_count", "load", "returned: number", function() return type(collectgarbage("count")) end },
    { "collectgarbage_step", "load", "returned: boolean", function() return type(collectgarbage("step")) end },
    -- holes already closed before issue 15
    { "os_execute", "load", "'os.execute' is disabled in the sandbox", function() return os.execute("true") end },
    { "io_popen", "load", "'io.popen' is disabled in the sandbox", function() return io.popen("true") end },
    { "os_exit", "load", "'os.exit' is disabled in the sandbox", function() os.exit(3) end },
    { "os_remove", "load", "'os.remove' is disabled in the sandbox", function() return os.remove("/tmp/x") end },
    { "io_open_write", "load", "io.open: mode 'w' is disabled in the sandbox (read only)",
      function() return io.open(here() .. "/probe.txt", "w") end },
    { "io_output_file", "load", "io.output with a file name is disabled in the sandbox",
      function() return io.output(here() .. "/probe.txt") end },
    { "io_read_terminal", "load", "'io.read' is disabled in the sandbox", function() return io.read("l") end },
    { "package_loadlib", "load", "'package.loadlib' is disabled in the sandbox",
      function() return package.loadlib("libc.so.6", "puts") end },
    { "require_c_module", "load", "module 'lfs' not found", function() return require "lfs" end },
    { "require_traversal", "load", "not found", function() return require "..%.%.%.etc%.passwd" end },
    { "binary_chunk", "load", "attempt to load a binary chunk (mode is 't')",
      function() return assert(load(string.dump(function() return 1 end))) end },
    { "dofile_outside", "load", "'/etc/passwd' " .. OUTSIDE, function() return dofile("/etc/passwd") end },
    { "loadfile_outside", "load", "'/etc/hostname' " .. OUTSIDE, function() return loadfile("/etc/hostname") end },
    { "debug_sethook", "load", "attempt to call a nil value (field 'sethook')",
      function() debug.sethook() end },
    { "debug_getupvalue", "load", "attempt to call a nil value (field 'getupvalue')",
      function() return debug.getupvalue(string.find, 1) end },
    { "runaway_loop", "load", BUDGET, function() while true do end end },
    { "runaway_pcall", "load", BUDGET, function() pcall(function() while true do end end) end },
    { "runaway_xpcall", "load", BUDGET,
      function() xpcall(function() while true do end end, function(e) return e end) end },
    { "runaway_coroutine", "load", BUDGET,
      function() coroutine.resume(coroutine.create(function() while true do end end)) end },
    { "runaway_error_handler", "load", BUDGET,
      function() xpcall(error, function() while true do end end) end },
    { "runaway_brain", "brain", BUDGET, function() while true do end end },
    -- issue 27: C memory counts against --memory (peak RSS checked by the script)
    { "navgrid_creep", "ticks", "not enough memory",
      function(world)
          keep.navs = keep.navs or {}
          for _ = 1, 10 do keep.navs[#keep.navs + 1] = world:navgrid{ cell = 200 / 2048 } end -- 4,194,304 cells each
      end, "--memory 256" },
    { "snapshot_creep", "ticks", "not enough memory",
      function()
          if not keep.big then
              keep.big, keep.snaps = steer.world{ width = 400, height = 400 }, {}
              for i = 1, 20000 do keep.big:spawn{ pos = { i % 400, i // 400 } } end
          end
          for _ = 1, 10 do keep.snaps[#keep.snaps + 1] = keep.big:snapshot() end
      end, "--memory 256" },
    { "agent_creep", "ticks", "not enough memory",
      function()
          keep.big = keep.big or steer.world{ width = 400, height = 400 }
          for i = 1, 100000 do keep.big:spawn{ pos = { i % 400, (i // 400) % 400 } } end
      end, "--memory 256" },
    { "polygon_creep", "ticks", "not enough memory",
      function(world)
          if not keep.poly then
              keep.poly = {}
              for i = 1, 100000 do
                  local a = i / 100000 * 2 * math.pi
                  keep.poly[i] = { 100 + 50 * math.cos(a), 100 + 50 * math.sin(a) }
              end
          end
          for _ = 1, 20 do world:add_obstacle{ polygon = keep.poly } end
      end, "--memory 256" },
    { "path_creep", "ticks", "not enough memory",
      function()
          if not keep.pts then
              keep.pts, keep.paths = {}, {}
              for i = 1, 100000 do keep.pts[i] = { i % 200, i % 150 } end
          end
          for _ = 1, 20 do keep.paths[#keep.paths + 1] = steer.path(keep.pts) end
      end, "--memory 256" },
    { "flowfield_creep", "ticks", "not enough memory",
      function(world)
          keep.nav = keep.nav or world:navgrid{ cell = 0.5 }
          keep.fields = keep.fields or {}
          for _ = 1, 10 do keep.fields[#keep.fields + 1] = keep.nav:flow_field{ 100, 100 } end
      end, "--memory 256" },
    -- issue 27: shared tables read-only, searchpath confined
    { "string_find_write", "update", "cannot change 'string.find'",
      function() string.find = function() return 1 end end }, -- luacheck: ignore 122
    { "string_global_write", "load", "cannot assign the global 'string'",
      function() string = {} end }, -- luacheck: ignore 121
    { "string_find_rawset", "load", "rawset: the library tables are read-only in the sandbox",
      function() rawset(string, "find", print) end },
    { "string_find_via_metatable", "load", "cannot change 'string.find'",
      function() getmetatable("").__index.find = print end },
    { "string_find_via_require", "load", "cannot change 'string.find'",
      function() require("string").find = print end },
    { "math_random_write", "brain", "cannot change 'math.random'",
      function() math.random = function() return 4 end end }, -- luacheck: ignore 122
    { "steer_world_write", "load", "cannot change 'steer.world'", function() steer.world = print end },
    { "steer_vec2_write", "load", "cannot change 'steer.vec2.zero'", function() steer.vec2.zero = print end },
    { "package_searchers_write", "load", "cannot change 'package.searchers'",
      function() package.searchers[2] = function() end end },
    { "package_loaded_write", "load", "cannot change 'package.loaded.string'",
      function() package.loaded.string = {} end },
    { "own_global", "load", "returned: 7",
      function() MY_OWN = 7; return MY_OWN end }, -- luacheck: ignore 111 113
    { "searchpath_passwd", "load", "returned: nil", function() return package.searchpath("passwd", "/etc/?") end },
    { "searchpath_in_folder", "load", "redteam.lua",
      function() return package.searchpath("redteam", here() .. "/?.lua") end },
    { "memory_bomb", "load", "not enough memory",
      function()
          local t = {}
          pcall(function() for i = 1, math.maxinteger do t[i] = ("x"):rep(65536) .. i end end)
          return #t
      end, "--memory 64" },
}

local by_name = {}
for _, a in ipairs(attempts) do by_name[a[1]] = a end

-- The attempt a brain or scene.update runs (set by scene.load).
local current

function scene.run_current(world)
    local a = current
    local r = table.pack(pcall(a[4], world))
    if r[1] then
        print(("RESULT %s returned: %s"):format(a[1], tostring(r[2])))
    else
        local msg = tostring(r[2]):gsub("^[^\n]-:%d+: ", "")
        print(("RESULT %s error: %s"):format(a[1], msg))
    end
end

function scene.load(world, args)
    local name = args[1]
    if name == "list" then
        for _, a in ipairs(attempts) do
            print(("ATTEMPT\t%s\t%s\t%s\t%s"):format(a[1], a[2], a[5] or "-", a[3]))
        end
        return
    end
    current = assert(by_name[name], "no attempt named " .. tostring(name))
    REDTEAM = scene -- luacheck: ignore 111
    if current[2] == "brain" then
        world:spawn{ pos = { 50, 50 }, brain = "counter" }
        world:spawn{ pos = { 100, 100 }, brain = "redteam_brain" }
    elseif current[2] == "ticks" then
        world:spawn{ pos = { 50, 50 }, brain = "counter" }
        scene.update = function(w) current[4](w) end
    elseif current[2] == "update" then
        world:spawn{ pos = { 50, 50 }, brain = "counter" }
        scene.update = function(w) scene.update = nil; scene.run_current(w) end
    else
        world:spawn{ pos = { 50, 50 } }
        scene.run_current(world)
    end
end

return scene
