-- Off-mesh links: nav:link, nav:unlink, path:links and brain.traverse_link
-- (API.md, "navigation", off-mesh links).
local steer = require "steer"
local vec2 = steer.vec2
local H = require "spec_helper"

local raises = H.raises

local TILE = 10

-- Two rooms a full wall apart (column 10), 20 x 10 tiles.
local MAP = {}
for y = 1, 10 do
  MAP[y] = string.rep(".", 10) .. "#" .. string.rep(".", 9)
end

local function world(threads)
  return steer.world { width = 200, height = 100, edges = "bounce", seed = 3, threads = threads }
end

local function T(x, y) return vec2(x * TILE, y * TILE) end

describe("navgrid links", function()
  it("a path takes a link when it is the only way, and names it", function()
    local nav = world():navgrid { tiles = MAP, tile = TILE }
    local p, why = nav:path(T(2.5, 5.5), T(17.5, 5.5))
    assert.is_nil(p)
    assert.equals("no route", why)
    local link = nav:link(T(9.5, 2.5), T(11.5, 2.5), { kind = "jump", cost = 5 })
    assert.equals("jump", link.kind)
    assert.equals(5, link.cost)
    assert.is_false(link.both)
    assert.equals(0, link.id % 1)
    p = assert(nav:path(T(2.5, 5.5), T(17.5, 5.5)))
    local links = p:links()
    assert.equals(1, #links)
    assert.equals(link, links[1].link)
    local i = links[1].index
    assert.equals(link.from, p[i])
    assert.equals(link.to, p[i + 1])
    -- One-way: there is no way back.
    assert.is_nil(nav:path(T(17.5, 5.5), T(2.5, 5.5)))
    assert.is_true(nav:unlink(link))
    assert.is_false(nav:unlink(link))
    assert.is_nil(nav:path(T(2.5, 5.5), T(17.5, 5.5)))
    local both = nav:link(T(11.5, 8.5), T(9.5, 8.5), { both = true })
    assert.near(20, both.cost, 1e-12) -- default: the straight distance
    p = assert(nav:path(T(2.5, 8.5), T(17.5, 8.5)))
    links = p:links()
    assert.equals(both, links[1].link)
    assert.equals(both.to, p[links[1].index]) -- the way back starts at its end
    assert.equals(both.from, p[links[1].index + 1])
  end)

  it("a link that saves nothing is not taken; a cheap one is", function()
    local map = {}
    for y = 1, 10 do map[y] = string.rep(".", 20) end
    local nav = world():navgrid { tiles = map, tile = TILE }
    local dear = nav:link(T(4.5, 5.5), T(15.5, 5.5), { cost = 500 })
    local p = assert(nav:path(T(2.5, 5.5), T(17.5, 5.5)))
    assert.equals(0, #p:links())
    assert.equals(2, #p)
    nav:unlink(dear)
    -- A teleport (cost 0) beats the straight walk.
    local tp = nav:link(T(4.5, 5.5), T(15.5, 5.5), { cost = 0, kind = "teleport" })
    p = assert(nav:path(T(2.5, 5.5), T(17.5, 5.5)))
    assert.equals(tp, p:links()[1].link)
  end)

  it("works on obstacle grids", function()
    local w = world()
    w:wall({ 100, 0 }, { 100, 100 })
    local nav = w:navgrid { cell = 5, clearance = 4 }
    assert.is_nil(nav:path({ 20, 50 }, { 180, 50 }))
    local link = nav:link({ 86, 30 }, { 114, 30 })
    local p = assert(nav:path({ 20, 50 }, { 180, 50 }))
    assert.equals(link, p:links()[1].link)
  end)

  it("on obstacle grids, ends in blocked cells snap to the nearest free cell", function()
    local w = world()
    w:wall({ 100, 0 }, { 100, 100 })
    local nav = w:navgrid { cell = 5, clearance = 4 }
    local a, b = vec2(96, 30), vec2(104, 30) -- a ledge each side, within the clearance
    assert.is_true(nav:blocked(a) and nav:blocked(b))
    local link = nav:link(a, b, { both = true })
    for _, way in ipairs { { vec2(20, 80), vec2(180, 80) }, { vec2(180, 80), vec2(20, 80) } } do
      local p = assert(nav:path(way[1], way[2]))
      local l = p:links()
      assert.equals(1, #l)
      assert.equals(link, l[1].link)
      local from, to = p[l[1].index], p[l[1].index + 1] -- the link's own ends
      assert.is_true((from - (way[1].x < 100 and a or b)):len() == 0 and (to - (way[1].x < 100 and b or a)):len() == 0)
    end
    -- An end with no free cell within the snap radius: the link waits.
    local far = w:navgrid { cell = 5, clearance = 4 }
    far:link({ 80, 30 }, { 100, 30 })
    assert.is_nil(far:path({ 20, 80 }, { 180, 80 }))
  end)

  it("rejects bad input with standard errors", function()
    local nav = world():navgrid { tiles = MAP, tile = TILE }
    raises(function() nav:link({ -1, 0 }, { 5, 5 }) end, "bad argument #1 to 'link' (outside the grid's map")
    raises(function() nav:link({ 5, 5 }, { 5, 500 }) end, "bad argument #2 to 'link' (outside the grid's map")
    raises(function() nav:link({ 5, 5 }, { 6, 6 }, { costs = 1 }) end,
      "bad argument #3 to 'link' (unknown field 'costs')")
    raises(function() nav:link({ 5, 5 }, { 6, 6 }, { cost = -1 }) end, "field 'cost'")
    raises(function() nav:link({ 5, 5 }, { 6, 6 }, { cost = math.huge }) end, "field 'cost'")
    raises(function() nav:link({ 5, 5 }, { 6, 6 }, { cost = 0 / 0 }) end, "field 'cost'")
    raises(function() nav:link({ 5, 5 }, { 6, 6 }, { kind = 3 }) end, "field 'kind'")
    raises(function() nav:link({ 5, 5 }, { 6, 6 }, { both = 1 }) end, "field 'both'")
    raises(function() nav:unlink({}) end, "bad argument #1 to 'unlink'")
    assert.is_false(nav:unlink(12345))
    assert.same({}, steer.path { { 0, 0 }, { 1, 1 } }:links())
  end)
end)

describe("brain.traverse_link", function()
  -- n agents with a brain follow the path over the link; traverse(self, a,
  -- link) is the brain's callback (nil: none). The checksum and the calls.
  local function run(threads, traverse, mode)
    local w = world(threads)
    local nav = w:navgrid { tiles = MAP, tile = TILE }
    local link = nav:link(T(9.5, 2.5), T(11.5, 2.5), { kind = "ladder" })
    local path = assert(nav:path(T(2.5, 5.5), T(17.5, 5.5), { radius = 0 }))
    local calls = {}
    local brain = {
      update = function(_, a) a:follow_path(path, { mode = mode }) end,
      traverse_link = traverse and function(self, a, l)
        calls[#calls + 1] = { self = self, agent = a, link = l, pos = a.pos }
        traverse(self, a, l)
      end or nil,
    }
    local agents = {}
    for k = 1, 6 do
      agents[k] = w:spawn { pos = T(1.5 + k * 0.5, 4.5 + (k % 3)), max_speed = 60, brain = brain }
    end
    local goal = path[#path]
    local steps = 0
    for s = 1, 600 do
      w:step(1 / 30)
      steps = s
      local done = true
      for _, a in ipairs(agents) do
        if (a.pos - goal):len() > 8 then done = false end
      end
      if done then break end
    end
    return { calls = calls, sum = w:checksum(), steps = steps, link = link, agents = agents, goal = goal }
  end

  it("is called once per agent at the link's start, and a teleport carries on", function()
    local r = run(1, function(_, a, l) a.pos = l.to end)
    assert.equals(6, #r.calls)
    local seen = {}
    for _, c in ipairs(r.calls) do
      assert.is_nil(seen[c.agent], "once per agent")
      seen[c.agent] = true
      assert.equals(r.link, c.link)
      assert.equals("ladder", c.link.kind)
      assert.is_true((c.pos - r.link.from):len() <= TILE + 1e-9, "called at the link's start")
    end
    for _, a in ipairs(r.agents) do
      assert.is_true((a.pos - r.goal):len() <= 8, "every agent arrived")
    end
  end)

  it("without the callback the agents walk across by themselves", function()
    local r = run(1, nil)
    assert.equals(0, #r.calls)
    for _, a in ipairs(r.agents) do
      assert.is_true((a.pos - r.goal):len() <= 8, "every agent arrived")
    end
    local predict = run(1, nil, "predict")
    assert.is_true(predict.steps < 600, "predict mode arrives too")
  end)

  it("is deterministic on 1 and 2 threads", function()
    local function teleport(_, a, l) a.pos = l.to end
    local one, two = run(1, teleport), run(2, teleport)
    assert.equals(one.sum, two.sum)
    assert.equals(#one.calls, #two.calls)
    local again = run(1, teleport, "predict")
    assert.equals(again.sum, run(2, teleport, "predict").sum)
  end)
end)

describe("links in snapshot files", function()
  -- Agents with a standing follow_path over the link and a brain module
  -- that teleports them across. A snapshot saved to a file before they
  -- reach the link, loaded into a fresh world, must still call
  -- traverse_link at the link (format 3 keeps the paths' link marks) and
  -- step to the same checksums as the world it was taken from.
  local calls
  local brain = {
    traverse_link = function(_, a, l)
      calls[#calls + 1] = { id = a.id, link = l.id, kind = l.kind }
      a.pos = l.to
    end,
  }
  package.loaded["links_spec_brain"] = brain

  local function setup()
    local w = world(1)
    local nav = w:navgrid { tiles = MAP, tile = TILE }
    nav:link(T(9.5, 2.5), T(11.5, 2.5), { kind = "ladder" })
    local path = assert(nav:path(T(2.5, 5.5), T(17.5, 5.5), { radius = 0 }))
    assert.is_true(#path:links() > 0, "the path takes the link")
    for k = 1, 4 do
      w:spawn { pos = T(1.5 + k * 0.5, 4.5 + (k % 3)), max_speed = 60, brain = brain,
                behaviors = { { "follow_path", path = path } } }
    end
    return w, path
  end

  local function run(w, steps)
    local sums = {}
    for s = 1, steps do
      w:step(1 / 30)
      sums[s] = w:checksum()
    end
    return sums
  end

  it("keeps the link marks: a restored world still calls traverse_link", function()
    local w, path = setup()
    calls = {}
    run(w, 10)
    assert.equals(0, #calls, "no agent at the link yet")
    local file = os.tmpname()
    assert(w:snapshot():save(file))
    calls = {}
    local after = run(w, 300)
    local live_calls = calls
    assert.equals(4, #live_calls, "each agent crossed once")

    -- A navgrid is not a value a file holds (API.md): the loading scene
    -- makes it and its link again, then restores.
    local snap = assert(steer.load_snapshot(file))
    os.remove(file)
    local w2 = world(1)
    local nav2 = w2:navgrid { tiles = MAP, tile = TILE }
    nav2:link(T(9.5, 2.5), T(11.5, 2.5), { kind = "ladder" })
    w2:restore(snap)
    calls = {}
    local again = run(w2, 300)
    assert.equals(#live_calls, #calls, "the restored agents cross by the link too")
    for k, c in ipairs(calls) do
      assert.equals(live_calls[k].id, c.id)
      assert.equals("ladder", c.kind)
    end
    for s = 1, #after do
      assert.equals(after[s], again[s], "step " .. s .. " after the restore")
    end
    local goal = path[#path]
    for a in w2:agents() do
      assert.is_true((a.pos - goal):len() <= 8, "every restored agent arrived")
    end
  end)

  it("restored without its navgrid, the agents walk across without a call", function()
    local w, path = setup()
    calls = {}
    run(w, 10)
    local snap = assert(steer.decode_snapshot(w:snapshot():encode()))
    local w2 = world(1) -- no navgrid, no link: the paths' marks name a link it does not know
    w2:restore(snap)
    local errors = {}
    w2.on_error = function(_, msg) errors[#errors + 1] = msg end
    calls = {}
    run(w2, 400)
    assert.equals(0, #calls, "no traverse_link with a link the world does not know")
    assert.same({}, errors, "no brain failed")
    local goal = path[#path]
    local n = 0
    for a in w2:agents() do
      n = n + 1
      assert.is_true((a.pos - goal):len() <= 8, "every agent arrived")
    end
    assert.equals(4, n)
  end)
end)
