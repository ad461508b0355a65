# Drops each section of an ncu --page source CSV that repeats the section
# before it line for line.  Nsight Compute 2025.3 prints the SASS table of
# some launches twice in a row (the same kernel, the same counters); one
# section per launch keeps section k = case k (validation/README.md).
# Usage: awk -f dedup_sections.awk ncu-source.all > ncu-source.csv
function flush_section() {
  if (cur != "" && cur != prev) printf "%s", cur
  if (cur != "") prev = cur
  cur = ""
}
/^"Kernel Name"/ { flush_section() }
{ cur = cur $0 "\n" }
END { flush_section() }
