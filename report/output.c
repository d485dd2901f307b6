/* output.c -- how the reports write what they write: CSV fields,
   quoted strings, and the parts of the Graphviz graphs that the block
   profile's and the traces' graphs share.

   Copyright (C) 2026 The profcopy authors.
   This file is part of profcopy, distributed under the GNU General
   Public License version 3 or later; see COPYING.  */

#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

/* Print S to OUT as one CSV field, quoted when it must be.  */

void
csv_field (FILE *out, const char *s)
{
  if (strpbrk (s, ",\"\r\n") == NULL)
    {
      fputs (s, out);
      return;
    }
  putc ('"', out);
  for (; *s != '\0'; s++)
    {
      if (*s == '"')
	putc ('"', out);
      putc (*s, out);
    }
  putc ('"', out);
}

/* Print S to OUT inside a DOT or JSON string, escaped: quotes and
   backslashes get a backslash, other bytes outside printable ASCII
   become `?'.  */

void
quoted_string (FILE *out, const char *s)
{
  for (; *s != '\0'; s++)
    {
      unsigned char c = (unsigned char) *s;
      if (c == '"' || c == '\\')
	fprintf (out, "\\%c", c);
      else if (c < 0x20 || c >= 0x7f)
	putc ('?', out);
      else
	putc (c, out);
    }
}

void
report_dot_colour (FILE *out, double heat)
{
  if (heat < 0)
    heat = 0;
  if (heat > 1)
    heat = 1;
  /* HSV: hue 0.16 (yellow) down to 0 (red), saturation up, value down
     a little; white text once the red is dark.  */
  fprintf (out, "fillcolor=\"%.3f %.3f %.3f\", fontcolor=\"%s\"",
	   0.16 * (1.0 - heat), 0.12 + 0.83 * heat, 1.0 - 0.35 * heat,
	   heat > 0.7 ? "white" : "black");
}

void
report_dot_begin (FILE *out, const char *name, const char *title,
		  const char *legend, double max_pct)
{
  fprintf (out, "digraph %s {\n"
	   "  graph [fontname=\"Helvetica\", nodesep=0.25, ranksep=0.5, "
	   "labelloc=t, fontsize=14, label=\"", name);
  quoted_string (out, title);
  fputs ("\"];\n"
	 "  node [shape=box, style=\"rounded,filled\", "
	 "fontname=\"Helvetica\", fontsize=10];\n"
	 "  edge [fontname=\"Helvetica\", fontsize=9, arrowsize=0.6];\n", out);
  /* The legend: the ramp's ends and middle.  */
  fputs ("  subgraph cluster_legend {\n"
	 "    label=\"", out);
  quoted_string (out, legend);
  fputs ("\"; fontsize=10; style=dashed;\n", out);
  for (int k = 0; k < 3; k++)
    {
      double heat = k / 2.0;
      fprintf (out, "    legend%d [label=\"%.2f%%\", ", k,
	       max_pct * heat * heat);
      report_dot_colour (out, heat);
      fputs ("];\n", out);
    }
  fputs ("    legend0 -> legend1 -> legend2 [style=invis];\n  }\n", out);
}

/* The base name of PATH.  */

const char *
base_name (const char *path)
{
  const char *slash = strrchr (path, '/');

  return slash != NULL ? slash + 1 : path;
}

void
report_dot_edge (FILE *out, size_t from, size_t to, uint64_t count,
		 uint64_t max_count)
{
  fprintf (out, "  f%zu -> f%zu [label=\"%" PRIu64 "\", penwidth=%.2f];\n",
	   from, to, count,
	   1.0 + 3.0 * (double) count / (double) (max_count != 0 ? max_count
						  : 1));
}
