/* workload_builtin.c - the built-in workload profiles, one row per benchmark.
 *
 * Sources: seed 000 (Singh, temporal coherence thesis: §5.2 "Benchmarks",
 * Table 5.2, §6.1-6.8) names the benchmarks bh cc cl dlb stn vpr (inter-
 * workgroup communication: need coherence) and hsp kmn lps ndl rg sr (intra-
 * workgroup only: "twrite ... disabled for applications that do not have
 * memory fences", §6.8, so their fence_rate is 0).  Seed 002 (Dong Li
 * thesis: Table 3.1 speedup with 16x L1+L2, Table 3.4 machine, Table 4.1
 * warp-max/warp-opt, Table 4.2 bottlenecks) names comd ii bfs sm ss sssp
 * scluster atax bicg gesummv mvt wc cfd; its KMN numbers go to kmn.
 * The seeds give behaviours, not stream statistics, so most numbers are
 * derived by the three rules below or marked (assumed).
 *
 * R1 reuse_prob = 1 - 1/S, S = Table 3.1 speedup with a 16x cache: if a
 *    memory-bound run time scales with misses, and the 16x cache catches
 *    the window reuse the base cache loses, the base cache misses S times
 *    as often, so that reuse is 1 - 1/S of the accesses.  (A model
 *    assumption; CoMD uses its measured miss ratio instead.)
 * R2 reuse_window K = 64 / warp_opt lines: the seed-002 L1 (Table 3.4:
 *    16KB / 128B = 128 lines, 2 schedulers per SM) holds the windows of
 *    2 x warp_opt warps, so warps beyond warp_opt thrash (Table 4.2
 *    L1Thrash).
 * R3 bottlenecks above warp_opt (Table 4.2): L1MSHR -> divergent requests
 *    (reqs_dist bimodal, mean 8) and short gaps, so many lines are in
 *    flight against 32 MSHRs; NoC -> many lines per instruction (4 fixed)
 *    and gap 2 (traffic); L1Blk (SCLUSTER, "experiences more conflict
 *    misses", §4.1.4) -> line_stride 32 = the L1's 32 sets, so an
 *    instruction's lines camp on one set; ParStrv (ATAX BICG MVT) ->
 *    warp_max = warp_opt = 4 and uncoalesced row walks (32 lines).
 * Defaults where nothing is said (assumed): reuse_skew 1, line_stride 1,
 * gap_dist geometric, region_density 1, private footprints of thousands of
 * lines (long reuses beyond any L1), kernel_len giving ~10^3..10^4 memory
 * instructions per warp so a run stays short. */
#include <string.h>

#include "data/workload.h"

/* Columns (cm_workload_profile order):
 *   name, seed, suite,
 *   private_lines, sm_shared_lines, gpu_shared_lines,
 *   reuse_prob, reuse_window, reuse_skew, stream_frac,
 *   share_sm, share_gpu, false_share, false_share_lines,
 *   write_frac, atomic_frac, atomic_lines, fence_rate,
 *   barrier_interval, barrier_grid,
 *   reqs_mean, reqs_dist, line_stride, gap_mean, gap_dist,
 *   kernels, kernel_len, persist, region_density,
 *   warp_max, warp_opt, cache_speedup16x */
static const cm_workload_profile builtins[] = {
    /* bh - seed 000 §5.2: "octree-building kernel which uses fine-grained
     * locking to insert nodes", "updates to the tree become visible to all
     * threads", 30000 bodies; §6.1 "BH and CL make extensive use of
     * fine-grained locking" -> atomic_frac 0.1, a fence per lock release
     * (fence_rate = atomic_frac), the tree GPU-shared (share_gpu 0.5,
     * ~8192 lines for 30000 bodies) (assumed values); one kernel (the
     * octree build).  Seed 002 Table 3.1 BH 1.08 (cache-insensitive) ->
     * modest reuse 0.4.  Tree walks diverge: bimodal 4 (assumed). */
    {"bh", 0, "tc-inter", 2048, 256,  8192, 0.4, 32, 1, 0.1, 0.1,
     0.5,  0, 64,         0.1,  0.1,  1024, 0.1, 0,  0, 4,   1,
     1,    8, 1,          1,    2000, 0,    1,   0,  0, 1.08},
    /* cc - seed 000 §5.2: push-relabel on "a 2D stencil graph", push, pull
     * and relabel fused "into a single kernel" using coherent memory for
     * "communication between nodes in different workgroups" -> one kernel,
     * share_gpu 0.15 (boundary nodes, assumed); §6.8 "stalling at the core
     * due to memory fences" -> fences, 0.05 (assumed); pushes update a
     * neighbour's excess: atomics 0.05 on per-node lines (low contention,
     * assumed); stencil rows coalesce: 2 lines (assumed). */
    {"cc", 0, "tc-inter", 4096, 512,  4096,  0.5,  16, 1, 0.05, 0.2,
     0.15, 0, 64,         0.25, 0.05, 65536, 0.05, 0,  0, 2,    0,
     1,    8, 1,          1,    4000, 0,     1,    0,  0, 0},
    /* cl - seed 000 §5.2: constraint solver "using fine-grained locks to
     * ensure that two constraints moving the same particle are serialized",
     * particle updates visible to all threads; §6.1 extensive locking ->
     * atomic_frac 0.1, fence per release, share_gpu 0.4 (particles),
     * 4096 lock lines (assumed); constraint -> particle gathers: bimodal 8
     * (assumed); one kernel (the constraint-solving kernel). */
    {"cl", 0, "tc-inter", 2048, 256,  16384, 0.4, 16, 1, 0.05, 0.1,
     0.4,  0, 64,         0.15, 0.1,  4096,  0.1, 0,  0, 8,    1,
     1,    8, 1,          1,    2000, 0,     1,   0,  0, 0},
    /* dlb - seed 000 §5.2: task stealing on "non-blocking task queues",
     * "each workgroup works on a single task at a time"; §6.1 task-queue
     * updates put invalidation latency on the critical path, a child task
     * on another core re-reads its parent's data ("an invalidation with
     * every data access") -> share_gpu 0.3; §6.6 L1 MSHRs merge "redundant
     * requests across wavefronts" halving loads -> share_sm 0.5; atomics
     * on 16 queue lines (high contention) with a fence each, 0.05
     * (assumed); 100000-node input, one kernel. */
    {"dlb", 0, "tc-inter", 1024, 512,  8192, 0.3,  16, 1, 0.05, 0.5,
     0.3,   0, 64,         0.15, 0.05, 16,   0.05, 0,  0, 2,    0,
     1,     4, 1,          1,    2000, 0,    1,    0,  0, 0},
    /* stn - seed 000 §5.2: "reads the latest value from its 24 adjacent
     * neighbours ... and produces a new value of its own" -> 25 memory
     * instructions per node step, write_frac 1/25 = 0.04, window K 24;
     * "persistent thread model", "fast barriers ... to synchronize
     * workgroups between time steps" -> one kernel, a grid barrier every 25
     * memory instructions (one node per warp per step, assumed) with a
     * fence before it (fence_rate 0.04); halo in other workgroups'
     * subsets: share_gpu 0.1 (assumed). */
    {"stn", 0, "tc-inter", 4096, 512,  4096, 0.7,  24, 0.5, 0, 0.2,
     0.1,   0, 64,         0.04, 0,    1,    0.04, 25, 1,   2, 0,
     1,     4, 1,          1,    2500, 0,    1,    0,  0,   0},
    /* vpr - seed 000 §5.2: "multiple swaps ... in parallel, one per
     * wavefront", "fine-grained locks", "threads within a wavefront compute
     * the bounding-box cost function in parallel"; §6.1 "very low
     * contention, contains fewer atomic accesses" -> atomic_frac 0.02 over
     * 262144 lock lines, fence per release; cost gathers bimodal 8; swapped
     * locations GPU-shared 0.3 (assumed); "one iteration in the annealing
     * schedule" -> one kernel. */
    {"vpr", 0,  "tc-inter", 2048, 256,  65536,  0.4,  16, 1, 0.05, 0.1,
     0.3,   0,  64,         0.05, 0.02, 262144, 0.02, 0,  0, 8,    1,
     1,     16, 1,          1,    1000, 0,      1,    0,  0, 0},
    /* hsp - seed 000 §6.1-6.2: "HSP contains false sharing, which introduces
     * unnecessary invalidations", "large amount of INV traffic" ->
     * false_share 0.1 over 256 tile-edge lines (assumed); §6.6 "HSP prefers
     * a large lifetime to fully utilize the L1 cache" -> reuse 0.6, K 32
     * (assumed); no fences (§6.8).  Seed 002 Table 3.1 HOTSPOT 0.99. */
    {"hsp", 0,   "tc-intra", 2048, 512,  1024, 0.6, 32, 1, 0,   0.2,
     0,     0.1, 256,        0.1,  0,    1,    0,   0,  0, 1,   0,
     1,     16,  1,          4,    1000, 0.5,  1,   0,  0, 0.99},
    /* kmn - seed 000 Table 5.2 (k-means, intra-workgroup: no fences); seed
     * 002: Table 3.1 KMN 7.46 -> R1 reuse 0.87; Table 4.1 24/1 ("KMN, show
     * no benefit from additional warps beyond one") -> R2 K 64; Table 4.2
     * NoC + L1Thrash -> R3 4 lines fixed, gap 2; §6.1 the largest signature
     * group's "reuse distance of four" (per set) -> skew 1.  Cluster
     * centres GPU-shared, read-only, 64 lines, share 0.1; iterations: 4
     * kernels over the same points, persist 1 (assumed). */
    {"kmn", 0, "tc-intra", 4096, 256,  64, 0.87, 64, 1, 0,   0,
     0.1,   0, 64,         0.02, 0,    1,  0,    0,  0, 4,   0,
     1,     2, 1,          4,    1000, 1,  1,    24, 1, 7.46},
    /* lps - seed 000 Table 5.2 (3D Laplace, Bakhoda et al.; intra-
     * workgroup, no fences); seed 002 Table 3.1 LPS 1.01 (cache-
     * insensitive) -> little window reuse 0.3, K 8, half streaming
     * (assumed); CTA tile SM-shared 0.2 (assumed). */
    {"lps", 0, "tc-intra", 4096, 512,  1024, 0.3, 8, 1, 0.5, 0.2,
     0,     0, 64,         0.1,  0,    1,    0,   0, 0, 2,   0,
     1,     8, 1,          4,    1000, 0.5,  1,   0, 0, 1.01},
    /* ndl - seed 000 §6.6: "NDL's streaming access pattern benefits from a
     * short lifetime, or an effectively disabled L1" -> stream_frac 0.9,
     * reuse 0.1, K 4.  Needleman-Wunsch is seed 001's nw ("region density
     * ~1 valid block of 16") -> region_density 1/16 = 0.0625, and seed
     * 003's nw ("full-line writes, each address written once") ->
     * write_frac 0.33 (assumed); one kernel per anti-diagonal: 64 short
     * kernels (assumed).  Seed 002 Table 3.1 NW 1.14. */
    {"ndl", 0, "tc-intra", 4096, 256, 1024, 0.1,    4, 1, 0.9, 0.1,
     0,     0, 64,         0.33, 0,   1,    0,      0, 0, 1,   0,
     1,     8, 1,          64,   50,  0,    0.0625, 0, 0, 1.14},
    /* rg - seed 000 §6.7: "As the directory size becomes large enough to
     * capture entire working sets, subsequent kernels need invalidations
     * when accessing the working set from a previous kernel" -> persist 1
     * over 8 kernels and a small private footprint, 256 lines (assumed);
     * Gaussian filter window reuse 0.5, K 16 (assumed); no fences. */
    {"rg", 0, "tc-intra", 256, 512, 1024, 0.5, 16, 1, 0, 0.2, 0, 0, 64, 0.1, 0,
     1,    0, 0,          0,   1,   0,    1,   8,  1, 8, 500, 1, 1, 0,  0,   0},
    /* sr - seed 000 Table 5.2 (anisotropic diffusion, Rodinia srad; intra-
     * workgroup, no fences).  Seed 002 Table 3.1 SRAD_V1 1.44 -> R1 reuse
     * 0.31; two kernels per iteration, 2 iterations, same image
     * (persist 1) (assumed). */
    {"sr", 0,  "tc-intra", 4096, 512,  1024, 0.31, 16, 1, 0.1, 0.2,
     0,    0,  64,         0.15, 0,    1,    0,    0,  0, 1,   0,
     1,    12, 1,          4,    1000, 1,    1,    0,  0, 1.44},
    /* comd - seed 002 Table 3.1 CoMD 2.45; §4.1.2 "the L1 miss rate of CoMD
     * increases from 7% to 64% when warp count per scheduler increases from
     * one to eight" -> reuse 0.93 (one warp's hits); Table 4.1 16/6 ->
     * R2 K 11; Table 4.2 NoC + L1Thrash -> R3 4 lines, gap 2. */
    {"comd", 2, "li-cache", 8192, 256,  1024, 0.93, 11, 1, 0,   0.1,
     0.05,   0, 64,         0.1,  0,    1,    0,    0,  0, 4,   0,
     1,      2, 1,          1,    2000, 0,    1,    16, 6, 2.45},
    /* ii - seed 002 Table 3.1 II 5.05 -> R1 0.80; Table 4.1 24/2 -> K 32;
     * Table 4.2 L1MSHR + L1Thrash -> R3 bimodal 8, gap 4; inverted index
     * (Mars MapReduce) scans documents: stream 0.3 (assumed). */
    {"ii", 2, "li-cache", 4096, 256,  1024, 0.8, 32, 1, 0.3, 0.1,
     0.05, 0, 64,         0.1,  0,    1,    0,   0,  0, 8,   1,
     1,    4, 1,          1,    2000, 0,    1,   24, 2, 5.05},
    /* bfs - seed 002 Table 3.1 BFS 2.30 -> R1 0.57; Table 4.1 24/8 -> K 8;
     * Table 4.2 L1MSHR + L1Thrash -> bimodal; seed 004 "BFS has 1-2 active
     * threads per warp" -> mean 4, not 8; seed 001 "bfs launches many very
     * short kernels" -> 16 kernels of 200; frontier GPU-shared 0.2
     * (assumed). */
    {"bfs", 2, "li-cache", 4096, 256, 16384, 0.57, 8,  1, 0.1, 0.05,
     0.2,   0, 64,         0.1,  0,   1,     0,    0,  0, 4,   1,
     1,     4, 1,          16,   200, 0.5,   1,    24, 8, 2.30},
    /* sm - string match (Mars), seed 002 Table 3.2.  Table 3.1 lists "SM
     * 1.63" (below the 2x cut, so possibly another SM) -> R1 0.39; Table
     * 4.1 24/2 -> K 32; Table 4.2 NoC + L1Thrash -> 4 lines, gap 2; scans
     * text: stream 0.5 (assumed). */
    {"sm", 2, "li-cache", 4096, 256,  1024, 0.39, 32, 1, 0.5, 0.05,
     0.05, 0, 64,         0.05, 0,    1,    0,    0,  0, 4,   0,
     1,    2, 1,          1,    2000, 0,    1,    24, 2, 1.63},
    /* ss - seed 002 Table 3.1 SS 2.38 -> R1 0.58; Table 4.1 24/2 -> K 32;
     * Table 4.2 L1MSHR only (no thrash) -> bimodal 8, gap 4. */
    {"ss", 2, "li-cache", 2048, 256,  1024, 0.58, 32, 1, 0.1, 0.05,
     0.1,  0, 64,         0.05, 0,    1,    0,    0,  0, 8,   1,
     1,    4, 1,          1,    2000, 0,    1,    24, 2, 2.38},
    /* sssp - seed 002 Table 3.1 SSSP 2.20 -> R1 0.55; Table 4.1 24/8 -> K 8;
     * Table 4.2 L1MSHR + L1Thrash -> bimodal 8, gap 4; LonestarGPU
     * iterates kernels to convergence: 8 x 250 (assumed). */
    {"sssp", 2, "li-cache", 4096, 256, 16384, 0.55, 8,  1, 0.1, 0.05,
     0.2,    0, 64,         0.1,  0,   1,     0,    0,  0, 8,   1,
     1,      4, 1,          8,    250, 0.5,   1,    24, 8, 2.20},
    /* scluster - seed 002 Table 3.1 SCLUSTER 6.14 -> R1 0.84; Table 4.1
     * 24/4 -> K 16; Table 4.2 L1Blk, §4.1.4 "most of its memory pipeline
     * stalls are caused by the L1 block reservation failure ... more
     * conflict misses" -> R3 line_stride 32; 4 lines (assumed). */
    {"scluster", 2, "li-cache", 4096, 256,  1024, 0.84, 16, 1, 0,   0.05,
     0.05,       0, 64,         0.05, 0,    1,    0,    0,  0, 4,   0,
     32,         4, 1,          1,    2000, 0,    1,    24, 4, 6.14},
    /* atax - seed 002 Table 3.1 ATAX 2.99 -> R1 0.67; Table 4.1 4/4 -> K
     * 16; Table 4.2 ParStrv + L1Thrash -> R3 32 lines (a thread per row of
     * a row-major matrix); 2 kernels (A x, then A^T y) (assumed). */
    {"atax", 2, "li-cache", 8192, 256,  1024, 0.67, 16, 0, 0,   0,
     0.05,   0, 64,         0.05, 0,    1,    0,    0,  0, 32,  0,
     1,      4, 1,          2,    1000, 0,    1,    4,  4, 2.99},
    /* bicg - seed 002 Table 3.1 BICG 2.70 -> R1 0.63; 4/4 -> K 16; ParStrv
     * + L1Thrash -> 32 lines; 2 kernels (assumed). */
    {"bicg", 2, "li-cache", 8192, 256,  1024, 0.63, 16, 0, 0,   0,
     0.05,   0, 64,         0.05, 0,    1,    0,    0,  0, 32,  0,
     1,      4, 1,          2,    1000, 0,    1,    4,  4, 2.70},
    /* gesummv - seed 002 Table 3.1 GESUMMV 3.36 -> R1 0.70; Table 4.1 4/1
     * -> K 64; Table 4.2 L1Thrash only -> 32 lines; 1 kernel (assumed). */
    {"gesummv", 2, "li-cache", 8192, 256,  1024, 0.7, 64, 0, 0,   0,
     0.05,      0, 64,         0.05, 0,    1,    0,   0,  0, 32,  0,
     1,         4, 1,          1,    2000, 0,    1,   4,  1, 3.36},
    /* mvt - seed 002 Table 3.1 MVT 2.90 -> R1 0.66; 4/4 -> K 16; ParStrv +
     * L1Thrash -> 32 lines; 2 kernels (assumed). */
    {"mvt", 2, "li-cache", 8192, 256,  1024, 0.66, 16, 0, 0,   0,
     0.05,  0, 64,         0.05, 0,    1,    0,    0,  0, 32,  0,
     1,     4, 1,          2,    1000, 0,    1,    4,  4, 2.90},
    /* wc - seed 002 Table 3.1 WC 2.73 -> R1 0.63; not in Table 4.1 (K 16,
     * assumed); AgeLRU "improves the throughput of ... WC by ... 6%" (mild
     * thrash); word count scans text: stream 0.3, bimodal 4 (assumed). */
    {"wc", 2, "li-cache", 4096, 256,  4096, 0.63, 16, 1, 0.3, 0.05,
     0.1,  0, 64,         0.1,  0,    1,    0,    0,  0, 4,   1,
     1,    4, 1,          1,    2000, 0,    1,    0,  0, 2.73},
    /* cfd - seed 002 Table 3.1 CFD 2.23 -> R1 0.55; not in Table 4.1 (K
     * 16, assumed); BIP "achieves significant speedups for II, KMN, SS and
     * CFD" (thrashing); unstructured-mesh gathers bimodal 4, 4 kernels over
     * the same mesh (assumed). */
    {"cfd", 2, "li-cache", 8192, 256, 8192, 0.55, 16, 1, 0,   0.05,
     0.1,   0, 64,         0.15, 0,   1,    0,    0,  0, 4,   1,
     1,     8, 1,          4,    500, 1,    1,    0,  0, 2.23},
};

#define NBUILTIN (sizeof builtins / sizeof builtins[0])

size_t cm_workload_builtin_count(void)
{
    return NBUILTIN;
}

const char *cm_workload_builtin_name(size_t i)
{
    return i < NBUILTIN ? builtins[i].name : NULL;
}

const cm_workload_profile *cm_workload_builtin(const char *name)
{
    for (size_t i = 0; i < NBUILTIN; i++)
        if (strcmp(builtins[i].name, name) == 0) return &builtins[i];
    return NULL;
}
