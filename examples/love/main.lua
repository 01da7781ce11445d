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
--
-- One world step per frame at the world's fixed dt (1/60 s): the simulation
-- is the same whatever the frame rate, and so is the checksum.

local source = love.filesystem.getSource()
local root = source .. "/../.."

local opts = { frames = nil, checksum = false, steer = os.getenv("STEER_CPATH"), screenshot = nil }
do
  local i = 1
  while arg[i] do
    local a = arg[i]
    if a == "--frames" then opts.frames = tonumber(arg[i + 1]); i = i + 1
    elseif a == "--checksum" then opts.checksum = true
    elseif a == "--steer" then opts.steer = arg[i + 1]; i = i + 1
    elseif a == "--screenshot" then opts.screenshot = arg[i + 1]; i = i + 1
    end
    i = i + 1
  end
end
local steer_dir = opts.steer or (root .. "/build-luajit")
package.cpath = steer_dir .. "/?.so;" .. package.cpath
package.path = root .. "/scripts/?.lua;" .. package.path

-- Scripted runs (--frames) fail with a message and status 1, not LÖVE's
-- error screen waiting for a click.
if opts.frames then
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
local errors, frame = 0, 0

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
  scene = require "hunt"
  local cfg = scene.config or {}
  world = steer.world { width = cfg.width or 800, height = cfg.height or 600,
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

function love.update()
  if opts.quit then return end -- done: the last frame is being drawn
  if scene.update then scene.update(world, world.dt) end
  world:step()
  frame = frame + 1
  if opts.frames and frame >= opts.frames then
    if opts.screenshot then
      love.graphics.captureScreenshot(function(image)
        image:encode("png", "shot.png")
        local saved = love.filesystem.getSaveDirectory() .. "/shot.png"
        os.rename(saved, opts.screenshot)
      end)
    end
    if opts.checksum then
      print(("ticks=%d agents=%d checksum=%s errors=%d"):format(frame, world:count(), world:checksum(), errors))
    end
    opts.quit = true
  end
end

local function draw_agent(a)
  local p, h, r = a.pos, a.heading, a.radius
  local s = a.side
  color(a.color)
  love.graphics.polygon("fill",
    p.x + h.x * r * 1.6, p.y + h.y * r * 1.6,
    p.x - h.x * r + s.x * r, p.y - h.y * r + s.y * r,
    p.x - h.x * r - s.x * r, p.y - h.y * r - s.y * r)
end

function love.draw()
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
  love.graphics.print(("LÖVE %d.%d  %s  steer %s  frame %d"):format(major, minor, jit and jit.version or _VERSION,
    steer.version, frame), 10, 8)
  if opts.quit and not opts.quitting then
    opts.quitting = true -- after this frame is drawn (the screenshot is of it)
  elseif opts.quitting then
    love.event.quit()
  end
end

function love.mousepressed(x, y, button)
  if scene.mousepressed then scene.mousepressed(world, x, y, button) end
end
