-- sqlite-workload.sql -- a deterministic query workload for
-- bench/run-all.sh, run as `sqlite3 -batch :memory: < sqlite-workload.sql':
-- tables filled by recursive CTEs, index builds, joins, grouping,
-- sorting, string functions, window functions, updates and deletes.
-- Every query prints a small result, so that a profiled run can be
-- compared with the original's byte for byte.
--
-- Copyright (C) 2026 The profcopy authors.
-- This file is part of profcopy, distributed under the GNU General Public
-- License version 3 or later; see COPYING.

CREATE TABLE dept (id INTEGER PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE emp (id INTEGER PRIMARY KEY, name TEXT, dept INTEGER,
		  salary INTEGER, hired INTEGER, note TEXT);
CREATE TABLE sale (id INTEGER PRIMARY KEY, emp INTEGER, amount INTEGER,
		   day INTEGER);

WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
  INSERT INTO dept SELECT i, 'dept' || i,
    CASE i % 4 WHEN 0 THEN 'Oslo' WHEN 1 THEN 'Lima' WHEN 2 THEN 'Pune'
    ELSE 'Kobe' END FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)
  INSERT INTO emp SELECT i, 'emp' || i, 1 + (i * 37) % 40,
    1000 + (i * 7919) % 9000, 1990 + (i * 31) % 35,
    substr('lorem ipsum dolor sit amet consectetur', 1 + i % 20, 12) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30000)
  INSERT INTO sale SELECT i, 1 + (i * 7907) % 6000, (i * 104729) % 1000,
    i % 365 FROM n;

CREATE INDEX emp_dept ON emp (dept, salary);
CREATE INDEX sale_emp ON sale (emp, day);

SELECT count(*), sum(salary), min(hired), max(hired) FROM emp;
SELECT d.city, count(DISTINCT e.id), sum(s.amount)
  FROM dept d JOIN emp e ON e.dept = d.id JOIN sale s ON s.emp = e.id
  GROUP BY d.city ORDER BY d.city;
SELECT e.name, sum(s.amount) AS total FROM emp e JOIN sale s ON s.emp = e.id
  GROUP BY e.id ORDER BY total DESC, e.name LIMIT 5;
SELECT dept, name, salary FROM
  (SELECT dept, name, salary,
	  rank() OVER (PARTITION BY dept ORDER BY salary DESC, id) AS r FROM emp)
  WHERE r = 1 AND dept <= 5 ORDER BY dept;
SELECT day, sum(amount), avg(amount) FROM sale WHERE day % 73 = 0
  GROUP BY day ORDER BY day;
SELECT upper(substr(note, 1, 5)), count(*), length(group_concat(name, ','))
  FROM emp GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 6;
SELECT count(*) FROM emp WHERE name LIKE 'emp1%5' OR note GLOB '*sit*';

UPDATE emp SET salary = salary * 11 / 10 WHERE dept IN
  (SELECT id FROM dept WHERE city = 'Pune');
DELETE FROM sale WHERE amount < 100;
SELECT count(*), sum(amount) FROM sale;
SELECT printf('%.2f', avg(salary)), total(salary) FROM emp;

WITH RECURSIVE fib(a, b, k) AS
  (SELECT 0, 1, 0 UNION ALL SELECT b, a + b, k + 1 FROM fib WHERE k < 80)
  SELECT k, a FROM fib WHERE k % 20 = 0;
SELECT hex(zeroblob(4)), quote('it''s'), replace('a-b-c', '-', '+'),
  instr('profcopy', 'copy'), abs(-17), round(2.5), typeof(1.0);
