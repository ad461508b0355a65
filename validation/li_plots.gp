# The Li et al. study's plots (docs/li-study.md), drawn from the data files
# that `li_study.py plotdata` writes: run through validation/li_plots.sh.
# Times are relative to each kernel's shared-memory version, so kernels of
# different lengths share one axis; above 1 the L1 version is slower.
set terminal pngcairo size 900,480 font "DejaVu Sans,11"
set output 'li-h100-times.png'
set title "Li et al. pairs on the H100: L1 version time / shared-memory version time"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set ylabel "time relative to the shared-memory version"
set logscale y 2
set yrange [0.25:32]
set grid ytics
set key top left
set xtics nomirror
plot 'li-times.dat' using 3:xtic(2) title "shared memory" lc rgb "#4477aa", \
     '' using 4 title "L1, no carveout preference" lc rgb "#ee6677", \
     '' using 5 title "L1, carveout 50%" lc rgb "#ccbb44", \
     '' using 6 title "L1, carveout 100%" lc rgb "#66ccee", \
     1 with lines notitle lc rgb "black" dt 2

set terminal svg size 900,480 font "DejaVu Sans,11"
set output 'li-h100-times.svg'
replot

# the factors against the time ratio: instructions (scaled) and L1 hit rate
set terminal pngcairo size 900,480 font "DejaVu Sans,11"
set output 'li-h100-factors.png'
unset style
set style data points
unset logscale y
set logscale x 2
set autoscale
set title "Each case: time / shared-memory time against achieved occupancy and L1 hit rate"
set xlabel "time relative to the pair's shared-memory version"
set ylabel "percent"
set key top right
set grid
plot 'li-factors.dat' using 6:2 title "achieved occupancy %" pt 7 ps 1.2 lc rgb "#4477aa", \
     '' using 6:3 title "L1 hit rate %" pt 5 ps 1.2 lc rgb "#ee6677", \
     '' using 6:5 title "barrier stall share %" pt 9 ps 1.2 lc rgb "#228833"
