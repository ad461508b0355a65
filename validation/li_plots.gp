# The Li et al. study's plots (docs/li-study.md), drawn from the data files
# that `li_study.py plotdata` writes: run through validation/li_plots.sh.
# Ratios to each kernel's shared-memory version, so kernels of different
# lengths share one axis; above 1 the L1 version has more (is slower).
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y 2
set yrange [0.25:32]
set grid ytics
set key below horizontal
set xtics nomirror

set terminal pngcairo size 900,520 font "DejaVu Sans,11"
set output 'li-h100-times.png'
set title "Li et al. pairs on the H100 (1980 MHz): time / shared-memory version's time"
set ylabel "time relative to the shared-memory version"
plot 'li-times.dat' using 3:xtic(2) title "shared memory" lc rgb "#4477aa", \
     '' using 4 title "L1, no carveout preference" lc rgb "#ee6677", \
     '' using 5 title "L1, carveout 50%" lc rgb "#ccbb44", \
     '' using 6 title "L1, carveout 100%" lc rgb "#66ccee", \
     1 with lines notitle lc rgb "black" dt 2
set terminal svg size 900,520 font "DejaVu Sans,11"
set output 'li-h100-times.svg'
replot

set terminal pngcairo size 900,520 font "DejaVu Sans,11"
set output 'li-h100-factors.png'
set title "L1 version (no carveout preference) / shared-memory version: time and measured factors"
set ylabel "ratio, L1 version / shared-memory version"
set yrange [0.1:32]
plot 'li-factors.dat' using 3:xtic(2) title "time" lc rgb "#222222", \
     '' using 4 title "instructions executed" lc rgb "#ee6677", \
     '' using 5 title "achieved occupancy" lc rgb "#4477aa", \
     '' using 6 title "L2 traffic (bytes)" lc rgb "#ccbb44", \
     1 with lines notitle lc rgb "black" dt 2
