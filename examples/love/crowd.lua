-- crowd.lua — the LÖVE example's 10k mode (main.lua, --agents N): issue
-- 30's hunter/prey workload (the brains of tests/bench/hunt/, the world of
-- tests/bench/hunt.lua), drawn as one Mesh of points, a vertex per agent:
-- one draw call for all of them, however many.
local crowd = {}

local EVERY = 14 -- one agent in 14 a hunter

-- The world of tests/bench/hunt.lua with n agents: one per 900 square units.
function crowd.world(steer, n)
  local side = math.sqrt(n * 900)
  local w = steer.world { width = side, height = side, edges = "wrap", seed = 7, threads = 1, cell_size = 50 }
  for i = 1, n do
    local hunter = i % EVERY == 0
    w:spawn { pos = { w:random() * side, w:random() * side },
              tag = hunter and "hunter" or "prey", brain = hunter and "hunt_hunter" or "hunt_prey",
              max_speed = hunter and 160 or 150 }
  end
  return w, side
end

-- The drawing state for the world `w` of side `side` in a width x height
-- window: one Mesh of points, a vertex per agent (two floats of position,
-- four bytes of colour by tag), filled each frame through a ByteData and
-- drawn in one call. The agents are listed once: this mode removes none.
local VERTEX = 12 -- bytes: float x, y; uint8 r, g, b, a

function crowd.view(w, side, width, height)
  local agents, colors = {}, {}
  for a in w:agents() do
    agents[#agents + 1] = a
    colors[#colors + 1] = a.tag == "hunter" and { 255, 100, 80, 255 } or { 140, 205, 255, 255 }
  end
  local n = #agents
  local mesh = love.graphics.newMesh({ { "VertexPosition", "float", 2 }, { "VertexColor", "byte", 4 } },
                                     n, "points", "stream")
  local data = love.data.newByteData(n * VERTEX)
  local ok, ffi = pcall(require, "ffi")
  local scale = math.min(width, height) / side
  local v = { agents = agents, mesh = mesh, data = data, scale = scale, ox = (width - side * scale) / 2 }
  if ok and data.getFFIPointer then
    ffi.cdef [[ typedef struct steer_love_vertex { float x, y; uint8_t r, g, b, a; } steer_love_vertex; ]]
    v.vertices = ffi.cast("steer_love_vertex *", data:getFFIPointer())
    for i = 1, n do
      local c, vx = colors[i], v.vertices[i - 1]
      vx.r, vx.g, vx.b, vx.a = c[1], c[2], c[3], c[4]
    end
  else
    for i = 1, n do
      local c = colors[i]
      mesh:setVertex(i, 0, 0, c[1] / 255, c[2] / 255, c[3] / 255, c[4] / 255)
    end
  end
  return v
end

-- Every agent at render_pos(alpha), then one draw call. Returns the CPU
-- time the vertices took (the rest is LÖVE's upload and draw).
function crowd.draw(v, alpha)
  local t0 = os.clock()
  local agents, scale, ox, vertices = v.agents, v.scale, v.ox, v.vertices
  if vertices then
    for i = 1, #agents do
      local p = agents[i]:render_pos(alpha)
      local vx = vertices[i - 1]
      vx.x, vx.y = ox + p.x * scale, p.y * scale
    end
    v.mesh:setVertices(v.data)
  else
    local mesh = v.mesh
    for i = 1, #agents do
      local p = agents[i]:render_pos(alpha)
      mesh:setVertexAttribute(i, 1, ox + p.x * scale, p.y * scale)
    end
  end
  local t1 = os.clock()
  love.graphics.setPointSize(2)
  love.graphics.setColor(1, 1, 1, 1)
  love.graphics.draw(v.mesh)
  return t1 - t0
end

return crowd
