-- conf.lua — LÖVE 11 settings for the steer example.
function love.conf(t)
  t.identity = "steer-hunt"
  t.version = "11.0"
  t.window.title = "steer: hunters and prey (LÖVE)"
  t.window.width, t.window.height = 960, 640
  t.window.vsync = 1
  t.modules.audio, t.modules.sound, t.modules.joystick, t.modules.physics, t.modules.video =
    false, false, false, false, false
end
