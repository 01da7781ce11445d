-- main.lua — steer inside LÖVE 11: the hunt demo's scene and brains
-- (scripts/hunt.lua, hunter.lua, prey.lua, unchanged), stepped by LÖVE's
-- loop and drawn with love.graphics. LÖVE runs LuaJIT, so it loads the
-- LuaJIT build of steer.so (cmake -DSTEER_LUA=luajit, make build-luajit).
--
--   love examples/love                      -- the window; mouse as in the app
--   love examples/love --steer DIR          -- steer.so from DIR (default:
--                                              ../../build-luajit, or STEER_CPATH)
--   love examples/love --frames 600 --checksum [--screenshot FILE]
--       600 fixed steps, one per frame, then prints the world's summary line
--       (the same as `steer --headless --ticks 600 scripts/hunt.lua`) and quits
--   love examples/love --seconds 3 --pace
--       real time for 3 seconds, then prints the simulated time, the steps
--       dropped and the wall time (tests/reach/love.sh checks they agree)
--   love examples/love --agents 10000 [--frames N --bench]
--       the 10k mode: N hunters and prey with Lua brains (issue 30's
--       workload: tests/bench/hunt/, one agent per 900 square units), the
--       whole world scaled into the window, every agent a point of one Mesh
--       (one draw call for all of them). --bench: after the
--       frames, prints the median frame's work (the step and the drawing)
--       and the checksum, which equals tests/bench/hunt.lua's after as
--       many steps (make bench, tests/bench/love_10k.sh)
--
-- The world runs in real time at any refresh rate: world:advance(dt) turns
-- each frame's time into fixed steps of the world's dt (1/60 s), running the
-- scene's update before each, and agents are drawn at a:render_pos(alpha),
-- between their last two steps. The simulation is the same whatever the
-- frame rate, and so is the checksum.

local source = love.filesystem.getSource()
local root = source .. "/../.."

local opts = { frames = nil, checksum = false, steer = os.getenv("STEER_CPATH"), screenshot = nil,
               seconds = nil, pace = false, agents = nil, bench = false }
do
  local i = 1
  while arg[i] do
    local a = arg[i]
    if a == "--frames" then opts.frames = tonumber(arg[i + 1]); i = i + 1
    elseif a == "--checksum" then opts.checksum = true
    elseif a == "--steer" then opts.steer = arg[i + 1]; i = i + 1
    elseif a == "--screenshot" then opts.screenshot = arg[i + 1]; i = i + 1
    elseif a == "--seconds" then opts.seconds = tonumber(arg[i + 1]); i = i + 1
    elseif a == "--pace" then opts.pace = true
    elseif a == "--agents" then opts.agents = tonumber(arg[i + 1]); i = i + 1
    elseif a == "--bench" then opts.bench = true
    end
    i = i + 1
  end
end
local steer_dir = opts.steer or (root .. "/build-luajit")
package.cpath = steer_dir .. "/?.so;" .. package.cpath
package.path = root .. "/scripts/?.lua;" .. root .. "/tests/bench/hunt/?.lua;" .. package.path

-- Scripted runs (--frames) fail with a message and status 1, not LÖVE's
-- error screen waiting for a click.
if opts.frames or opts.seconds then
  function love.errorhandler(msg)
    io.stderr:write("steer love example: ", tostring(msg), "\n", debug.traceback(), "\n")
    os.exit(1)
  end
end

local ok, steer = pcall(require, "steer")
if not ok then
  error("cannot load steer.so from " .. steer_dir .. " (build it with `make build-luajit`, or pass"
        .. " --steer DIR): " .. tostring(steer), 0)
end

local scene, world, brains
local errors, frame, alpha = 0, 0, 1
local crowd, view -- the 10k mode (--agents): crowd.lua and its drawing state
-- --bench: each frame's work, seconds of CPU time (os.clock: on a busy
-- machine the wall clock measures the waiting too), and of the wall clock
local times = { step = {}, draw = {}, wall = {}, fill = {} }
local frame_start
local started -- love.timer's clock at the first frame (--seconds)

-- gfx for scene.draw and brain.draw, as the app gives them (docs/API.md).
local function color(c, a)
  if c then love.graphics.setColor(c[1] / 255, c[2] / 255, c[3] / 255, a or 1)
  else love.graphics.setColor(1, 1, 1, a or 1) end
end
local gfx = {
  line = function(a, b, c) color(c); love.graphics.line(a.x or a[1], a.y or a[2], b.x or b[1], b.y or b[2]) end,
  circle = function(p, r, c, fill)
    color(c); love.graphics.circle(fill and "fill" or "line", p.x or p[1], p.y or p[2], r)
  end,
  text = function(p, s, c) color(c); love.graphics.print(s, p.x or p[1], p.y or p[2]) end,
  arrow = function(from, v, c)
    color(c)
    local x, y = from.x or from[1], from.y or from[2]
    love.graphics.line(x, y, x + (v.x or v[1]), y + (v.y or v[2]))
  end,
}

function love.load()
  if opts.agents then
    crowd = require "crowd"
    local side
    world, side = crowd.world(steer, opts.agents)
    view = crowd.view(world, side, love.graphics.getDimensions())
    scene = {}
  else
    scene = require "hunt"
  end
  local cfg = scene.config or {}
  world = world or steer.world { width = cfg.width or 800, height = cfg.height or 600,
                                 edges = cfg.edges == nil and "wrap" or cfg.edges, seed = cfg.seed or 1,
                                 dt = cfg.dt, cell_size = cfg.cell_size }
  steer.install_random(world) -- math.random from the world's stream, as in the app
  world.on_error = function(_, message)
    errors = errors + 1
    io.stderr:write("steer: runtime error: ", message, "\n")
  end
  if not opts.checksum then
    -- the pointer, in world units (the window is the world); none headless
    steer.mouse = function()
      if love.window.hasMouseFocus() then return steer.vec2(love.mouse.getPosition()) end
    end
  end
  if scene.load then scene.load(world, {}) end
  brains = { hunter = require "hunter", prey = require "prey" }
  love.graphics.setBackgroundColor(0.07, 0.08, 0.1)
end

-- The scene's update before each fixed step, as the app runs it.
local function before_step(w, dt)
  if scene.update then scene.update(w, dt) end
end

local function finish()
  if opts.screenshot then
    love.graphics.captureScreenshot(function(image)
      image:encode("png", "shot.png")
      local saved = love.filesystem.getSaveDirectory() .. "/shot.png"
      os.rename(saved, opts.screenshot)
    end)
  end
  if opts.checksum then
    print(("ticks=%d agents=%d checksum=%s errors=%d"):format(world.tick, world:count(), world:checksum(), errors))
  end
  if opts.bench then
    local function median(t)
      table.sort(t)
      return t[math.max(1, math.floor((#t + 1) / 2))] or 0
    end
    local step, draw, wall = median(times.step) * 1e3, median(times.draw) * 1e3, median(times.wall) * 1e3
    local fill = median(times.fill) * 1e3
    print(("love %d agents: frame work %.2f ms CPU (step %.2f, drawing %.2f of which vertices %.2f; median of %d"
           .. " frames), %.0f FPS of work; wall %.2f ms; %s, backend %s; checksum %s"):format(world:count(),
      step + draw, step, draw, fill, #times.step, 1000 / (step + draw), wall, jit and jit.version or _VERSION, tostring(steer.backend),
      world:checksum()))
  end
  if opts.pace then
    print(("pace: time=%.4f dropped=%d wall=%.4f frames=%d"):format(world.time, world.dropped_steps,
      love.timer.getTime() - started, frame))
  end
  opts.quit = true
end

function love.update(dt)
  if opts.quit then return end -- done: the last frame is being drawn
  frame = frame + 1
  frame_start = { os.clock(), love.timer.getTime() }
  if opts.frames then
    -- scripted: exactly one step a frame, whatever the frame took
    local _
    _, alpha = world:advance(world.dt, before_step)
    if opts.bench and frame > 10 then times.step[#times.step + 1] = os.clock() - frame_start[1] end
    if frame >= opts.frames then finish() end
    return
  end
  if opts.seconds and not started then
    -- the wall clock from the first frame on: LÖVE's first dt includes its start-up
    started = love.timer.getTime()
    return
  end
  local _
  _, alpha = world:advance(math.max(dt, 0), before_step)
  if opts.seconds and love.timer.getTime() - started >= opts.seconds then finish() end
end

local function draw_agent(a)
  local p, h, r = a:render_pos(alpha), a.heading, a.radius
  local s = a.side
  color(a.color)
  love.graphics.polygon("fill",
    p.x + h.x * r * 1.6, p.y + h.y * r * 1.6,
    p.x - h.x * r + s.x * r, p.y - h.y * r + s.y * r,
    p.x - h.x * r - s.x * r, p.y - h.y * r - s.y * r)
end

-- The 10k mode's frame: every agent a point, and a status line.
local function draw_crowd()
  local t0 = os.clock()
  local fill = crowd.draw(view, alpha)
  if opts.bench and frame > 10 and not opts.quitting and frame_start then
    times.draw[#times.draw + 1] = os.clock() - t0
    times.fill[#times.fill + 1] = fill
    times.wall[#times.wall + 1] = love.timer.getTime() - frame_start[2]
  end
  love.graphics.setColor(0, 0, 0, 0.6)
  love.graphics.rectangle("fill", 4, 4, 520, 22)
  love.graphics.setColor(0.9, 0.9, 0.95)
  love.graphics.print(("%d agents  %s (%s)  %d FPS  tick %d  errors %d"):format(world:count(),
    jit and jit.version or _VERSION, tostring(steer.backend), love.timer.getFPS(), world.tick, errors), 10, 8)
end

function love.draw()
  if view then
    draw_crowd()
    if opts.quit and not opts.quitting then
      opts.quitting = true
    elseif opts.quitting then
      love.event.quit()
    end
    return
  end
  for _, o in ipairs(world:obstacles()) do
    if o.kind == "circle" then
      color({ 60, 70, 85 }); love.graphics.circle("fill", o.pos.x, o.pos.y, o.radius)
    end
  end
  for a in world:agents() do
    draw_agent(a)
    local b = brains[a.tag]
    if b and b.draw then b.draw(a.self, a, gfx) end
  end
  if scene.draw then scene.draw(world, gfx) end
  color({ 150, 150, 160 })
  local major, minor = love.getVersion()
  love.graphics.print(("LÖVE %d.%d  %s  steer %s  %d FPS  tick %d"):format(major, minor,
    jit and jit.version or _VERSION, steer.version, love.timer.getFPS(), world.tick), 10, 8)
  if opts.quit and not opts.quitting then
    opts.quitting = true -- after this frame is drawn (the screenshot is of it)
  elseif opts.quitting then
    love.event.quit()
  end
end

function love.mousepressed(x, y, button)
  if scene.mousepressed then scene.mousepressed(world, x, y, button) end
end
