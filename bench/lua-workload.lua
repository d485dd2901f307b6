-- lua-workload.lua -- a deterministic CPU-bound Lua workload for
-- bench/run-all.sh: table-heavy numeric code, string building and
-- pattern matching, closures, coroutines and table.sort with a Lua
-- comparison function.  Each part prints one checksum line, so that a
-- profiled run can be compared with the original's byte for byte.
--
-- Copyright (C) 2026 The profcopy authors.
-- This file is part of profcopy, distributed under the GNU General Public
-- License version 3 or later; see COPYING.
--
-- Usage: lua5.4 lua-workload.lua [SCALE]   (default 1)

local scale = tonumber (arg and arg[1]) or 1

-- A linear congruential generator, so that every run sees the same data.
local seed = 12345
local function rand (n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n
end

-- Sieve of Eratosthenes: integer loops over one big table.
local function sieve (n)
  local composite, count = {}, 0
  for i = 2, n do
    if not composite[i] then
      count = count + 1
      for j = i * i, n, i do composite[j] = true end
    end
  end
  return count
end

-- Spectral norm: floating point and function calls.
local function spectral (n)
  local function a (i, j)
    local ij = i + j - 1
    return 1.0 / (ij * (ij - 1) * 0.5 + i)
  end
  local function av (x, y)
    for i = 1, n do
      local s = 0
      for j = 1, n do s = s + a (i, j) * x[j] end
      y[i] = s
    end
  end
  local function atv (x, y)
    for i = 1, n do
      local s = 0
      for j = 1, n do s = s + a (j, i) * x[j] end
      y[i] = s
    end
  end
  local u, v, t = {}, {}, {}
  for i = 1, n do u[i] = 1 end
  for _ = 1, 10 do
    av (u, t); atv (t, v)
    av (v, t); atv (t, u)
  end
  local vbv, vv = 0, 0
  for i = 1, n do
    vbv = vbv + u[i] * v[i]
    vv = vv + v[i] * v[i]
  end
  return math.sqrt (vbv / vv)
end

-- Strings: building, formatting, gsub and gmatch, a word count.
local function strings (n)
  local words = { "alpha", "bravo", "charlie", "delta", "echo", "foxtrot",
		  "golf", "hotel", "india", "juliet", "kilo", "lima" }
  local parts = {}
  for i = 1, n do
    parts[#parts + 1] = string.format ("%s-%d:%s", words[rand (#words) + 1],
				       rand (1000), words[i % #words + 1])
  end
  local text = table.concat (parts, " ")
  local freq, distinct = {}, 0
  for w in text:gmatch ("%a+") do
    if not freq[w] then distinct = distinct + 1 end
    freq[w] = (freq[w] or 0) + 1
  end
  local up, subs = text:upper ():gsub ("[AEIOU]", "*")
  return #text, distinct, subs, #up
end

-- Sorting records with a comparison function written in Lua.
local function sorting (n)
  local recs = {}
  for i = 1, n do recs[i] = { key = rand (100000), id = i } end
  table.sort (recs, function (x, y)
    if x.key ~= y.key then return x.key < y.key end
    return x.id < y.id
  end)
  local sum = 0
  for i = 1, n, 97 do sum = (sum + recs[i].key * i) % 1000000007 end
  return sum
end

-- Closures and coroutines: a generator pipeline.
local function pipeline (n)
  local function gen (m)
    return coroutine.wrap (function ()
      for i = 1, m do coroutine.yield (i) end
    end)
  end
  local function filter (pred, g)
    return coroutine.wrap (function ()
      for x in g do if pred (x) then coroutine.yield (x) end end
    end)
  end
  local function map (f, g)
    return coroutine.wrap (function ()
      for x in g do coroutine.yield (f (x)) end
    end)
  end
  local total = 0
  for x in map (function (v) return v * v % 1009 end,
		filter (function (v) return v % 3 ~= 0 end, gen (n))) do
    total = total + x
  end
  return total
end

-- Recursion: a binary tree built and walked.
local function trees (depth)
  local function make (d)
    if d == 0 then return { } end
    return { make (d - 1), make (d - 1) }
  end
  local function check (t)
    if not t[1] then return 1 end
    return 1 + check (t[1]) + check (t[2])
  end
  local total = 0
  for _ = 1, 4 do total = total + check (make (depth)) end
  return total
end

print ("sieve", sieve (200000 * scale))
print ("spectral", string.format ("%.9f", spectral (60 * scale)))
print ("strings", strings (20000 * scale))
print ("sorting", sorting (20000 * scale))
print ("pipeline", pipeline (30000 * scale))
print ("trees", trees (12 + scale))
