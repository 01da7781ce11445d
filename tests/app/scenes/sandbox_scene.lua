-- sandbox_scene.lua — checks from inside a script what the sandbox allows.
-- Sandboxed (default): every dangerous call must fail; prints "SANDBOX OK".
-- `steer --trust sandbox_scene.lua -- trusted`: they must be there; prints
-- "TRUSTED OK". Any surprise raises, which fails the headless run.

local scene = {}

scene.config = { width = 200, height = 200, seed = 1 }

local function must_fail(what, f, pattern)
    local ok, err = pcall(f)
    if ok then error("the sandbox let through: " .. what, 0) end
    if pattern and not tostring(err):find(pattern) then
        error(what .. ": unexpected error: " .. tostring(err), 0)
    end
end

local function here()
    return debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$")
end

local function sandboxed(world)
    local dir = here()
    local probe = dir .. "/sandbox_probe.txt"
    must_fail("os.execute", function() return os.execute("true") end, "disabled")
    must_fail("io.popen", function() return io.popen("true") end, "disabled")
    must_fail("os.exit", function() os.exit(3) end, "disabled")
    must_fail("os.remove", function() return os.remove(probe) end, "disabled")
    must_fail("os.rename", function() return os.rename(probe, probe .. "2") end, "disabled")
    must_fail("io.open for writing", function() return io.open(probe, "w") end, "read only")
    must_fail("io.open for appending", function() return io.open(probe, "a+") end, "read only")
    must_fail("io.output(file)", function() return io.output(probe) end, "disabled")
    must_fail("package.loadlib", function() return package.loadlib("libc.so.6", "puts") end, "disabled")
    assert(io.open(probe, "r") == nil, "a probe file was created")
    -- reading the terminal would block the app where no budget can stop it
    must_fail("io.read", function() return io.read("l") end, "disabled")
    must_fail("io.lines()", function() return io.lines() end, "bad argument #1 to 'lines'")
    assert(io.stdin == nil, "io.stdin still reachable")
    -- C modules: no searcher for them at all.
    assert(#package.searchers == 2, "C module searchers still installed")
    must_fail("require of a C module", function() return require "lfs" end, "module 'lfs' not found")
    -- binary chunks
    local bin = string.dump(function() return 1 end)
    must_fail("load of a binary chunk", function() return assert(load(bin)) end, "binary")
    -- files outside the script folders
    must_fail("dofile outside", function() return dofile("/etc/passwd") end, "outside the script folders")
    must_fail("loadfile outside", function() return loadfile("/etc/hostname") end, "outside the script folders")
    -- the budget hook cannot be lifted, nor the originals reached
    assert(debug.sethook == nil and debug.getupvalue == nil and debug.getregistry == nil,
        "debug library not trimmed")
    -- still allowed: reading, text chunks, require from the scene's folder, scripts/
    local f = assert(io.open(dir .. "/sandbox_scene.lua", "r"))
    assert(f:read("l"):find("sandbox_scene"), "cannot read own file")
    f:close()
    assert(load("return 1 + 1")() == 2, "text chunk refused")
    assert(type(require "counter") == "table", "scene-folder module not found")
    assert(type(require "fsm") == "table", "built-in scripts/ module not found")
    assert(loadfile(dir .. "/counter.lua"), "loadfile inside the scene folder refused")
    local lines = 0
    for _ in io.lines(dir .. "/counter.lua") do lines = lines + 1 end
    assert(lines > 5, "io.lines(file) refused")
    world:spawn{ pos = { 100, 100 } }
    print("SANDBOX OK")
end

local function trusted(world)
    assert(type(debug.sethook) == "function", "debug.sethook missing under --trust")
    local ok = pcall(io.popen, "true")
    assert(ok, "io.popen refused under --trust")
    assert(#package.searchers >= 3, "C searchers missing under --trust")
    world:spawn{ pos = { 100, 100 } }
    print("TRUSTED OK")
end

function scene.load(world, args)
    if args[1] == "trusted" then trusted(world) else sandboxed(world) end
end

return scene
