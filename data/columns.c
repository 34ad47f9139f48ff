/* columns.c - units and meanings of result columns (see columns.h).
 * Result columns are declared once here, beside the parameters' units in
 * params.def, so every figure and every CSV reader agrees on them. */
#include "data/columns.h"

#include <string.h>

#include "data/params.h"

typedef struct column_info {
    const char *name, *unit, *help;
} column_info;

static const column_info result_columns[] = {
    /* MSHR occupancy model (models/mshr.h) */
    {"mean_occupancy", "entries", "mean busy L1 MSHR entries"},
    {"p_full", "", "time fraction with all L1 MSHR entries busy"},
    {"p_resfail", "", "probability a new miss finds every MSHR busy (reservation fail)"},
    {"miss_throughput", "misses/cycle", "MSHR allocations served per cycle per SM"},
    {"bandwidth", "GB/s", "L1 miss bandwidth of the whole GPU"},
    {"latency_mem", "cycles", "miss latency while holding an MSHR entry"},
    {"latency_eff", "cycles", "miss latency including the wait for a free entry"},
    {"mshr_wait", "cycles", "mean wait for a free MSHR entry"},
    {"merge_rate", "misses/cycle", "misses merged into an in-flight entry, per SM"},
    {"issue_fraction", "", "memory issue rate relative to never-stalled warps"},
    {"util_l2_mshr", "", "mean fraction of an L2 bank's MSHRs busy"},
    {"bottleneck", "", "the most utilised resource"},
    {"saturated", "", "whether the bottleneck is at least 90% utilised"},
    {"sources", "slots", "request slots in the closed network"},
    {"iterations", "", "root-finder iterations"},
    {"inst_rate", "inst/cycle", "memory instructions completed per cycle per SM"},
    {"util_mshr", "", "mean fraction of MSHR entries busy"},
    {"util_noc", "", "utilisation of a crossbar reply port"},
    {"util_l2", "", "utilisation of an L2 bank"},
    {"util_dram", "", "utilisation of a DRAM channel"},
    {"occupancy", "entries", "busy MSHR entries"},
    {"probability", "", "probability"},
    /* directory recalls (models/recall.h) */
    {"protocol", "", "coherence protocol"},
    {"dir_entries", "entries", "directory entries modelled (sets x ways)"},
    {"dir_sets", "sets", "directory sets"},
    {"dir_ways", "ways", "directory associativity"},
    {"p_dir_miss", "", "probability a directory access misses"},
    {"p_dir_evict", "", "probability a directory access evicts an entry"},
    {"p_sharerless", "", "probability an allocation into a full GPU-VIni directory set takes a sharer-less entry (no recall)"},
    {"p_live", "", "probability a listed sharer of an evicted entry still holds the line"},
    {"mean_sharers", "L1s", "mean L1s on an evicted entry's sharer list"},
    {"recalls_per_access", "copies/access", "live L1 copies recalled per directory access"},
    {"recall_msgs_per_access", "msgs/access", "recall (RCL) messages per directory access"},
    {"recalls_per_cycle", "copies/cycle", "live L1 copies recalled per cycle, whole machine"},
    {"recall_msgs_per_cycle", "msgs/cycle", "recall (RCL) messages per cycle, whole machine"},
    {"inv_msgs_per_access", "msgs/access", "RCL plus INVACK messages per directory access"},
    {"inv_flits_per_cycle", "flits/cycle", "RCL plus INVACK flits per cycle, whole machine"},
    {"l2_evict_per_access", "", "L2 evictions per directory access"},
    {"l2_evicts_per_cycle", "evictions/cycle", "L2 evictions per cycle, whole machine"},
    /* reuse distances and miss-ratio curves (models/reuse.h, mrc.h) */
    {"capacity_lines", "lines", "cache capacity"},
    {"capacity_bytes", "B", "cache capacity"},
    {"miss_ratio", "", "miss ratio"},
    {"miss_ratio_fa", "", "fully associative LRU miss ratio"},
    {"miss_ratio_setassoc", "", "set-associative LRU miss ratio predicted from the stack-distance histogram and how the reuse windows' lines share sets (occupancy model)"},
    {"miss_ratio_binomial", "", "set-associative LRU miss ratio predicted from the stack-distance histogram alone (binomial model, random placement)"},
    {"miss_ratio_setlocal", "", "set-associative LRU miss ratio from set-local stack distances (exact for LRU)"},
    {"distance_lo", "lines", "lower bound of a stack-distance bin"},
    {"distance_hi", "lines", "upper bound (exclusive) of a stack-distance bin"},
    {"count", "accesses", "accesses in the bin (weighted when sampled)"},
    {"warps", "warps", "interleaved warps"},
    {"size", "B", "cache capacity"},
    {"miss_ratio_sim", "", "miss ratio of exact cache simulation"},
    {"rel_error", "", "relative error of the model against simulation"},
    {"rel_error_setlocal", "", "relative error of the set-local miss ratio against simulation"},
    {"rel_error_binomial", "", "relative error of the binomial model against simulation"},
    {"abs_error", "", "absolute error of the model against simulation"},
    {"hit_rate_model", "", "hit rate predicted by the model"},
    {"hit_rate_sim", "", "hit rate of exact simulation"},
    {"hit_rate", "", "hit rate"},
    /* queue calculator (solvers/queue.h) */
    {"throughput", "1/time", "accepted arrivals per unit time"},
    {"mean_resp", "time", "mean response time"},
    {"mean_wait", "time", "mean wait in queue"},
};

static const column_info *find_result(const char *name)
{
    for (size_t i = 0; i < sizeof result_columns / sizeof result_columns[0];
         i++)
        if (strcmp(result_columns[i].name, name) == 0)
            return &result_columns[i];
    return NULL;
}

const char *cm_column_unit(const char *name)
{
    const cm_param_info *pi = cm_param_find(name);
    const char *unit = pi ? pi->unit : NULL;
    if (!pi) {
        const column_info *ci = find_result(name);
        unit = ci ? ci->unit : NULL;
    }
    return unit && unit[0] ? unit : NULL;
}

const char *cm_column_help(const char *name)
{
    const cm_param_info *pi = cm_param_find(name);
    if (pi) return pi->help;
    const column_info *ci = find_result(name);
    return ci ? ci->help : NULL;
}
