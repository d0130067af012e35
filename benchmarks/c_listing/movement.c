/* A hand-written C listing of the Cortes land-movement clauses: the baseline of
 * issue 48's target on the VM's movement listing (benchmarks/c_listing.py
 * builds its input from a real GameState and checks it against the engine).
 *
 * What it lists: the ids of the legal `move(unit, to)` actions of the side to
 * move at a land-movement decision (hex_wargame's movement procedure: every
 * unit of that side in a hex, every hex next to it), by the clauses of the
 * veteran rulebook that bear on a move:
 *   static, folded by cl_init into one cost per (mover class, directed edge),
 *   or -1 where the move is never legal:
 *     7.7   cost = the highest terrain cost of the hex entered (causeway: by side);
 *           a cost that is not a number is no candidate (the option's `where`);
 *     7.16  the causeway rate instead, along a causeway (reading causeway_rate_ends);
 *           no entering (and, reading along_causeway, no leaving) a causeway hex
 *           but across a causeway hexside;
 *     7.10  never into quagmire;  7.13  cavalry into chinampa only along a causeway;
 *     7.17  into Tepeyac from outside only across a causeway hexside;
 *   dynamic, read from the state at each call:
 *     7.1   cost <= move - spent, unless 7.3 permits (reading minimum_move:
 *           first_hex, moved == 0; any_points_left, spent < move);
 *     7.2   not when the unit's parent stack is closed or its move finished;
 *     7.4   never a cannon;  7.19  never a gunboat, nor a unit that sailed;
 *     7.5   never into a hex holding a piece of another side (a piece of no side
 *           counts), unless 9.4 (a mover that is no leader, into a hex whose
 *           enemy leader stands alone, Cortes alone but for cannons) or 11.6 (an
 *           Aztec mover, into a hex of cannons only) opens it;
 *     9.2   Cuauhtemoc leaves Tenochtitlan only once free.
 * Stacking limits (6.2-6.4) forbid no move: they are checked when a move ends
 * (6.6), and an overstacked hex loses units (6.7), so they are not listed here.
 *
 * The occupancy of the hexes is worked out from the piece places at every
 * call, as part of the listing. cl_time runs the listing n times inside C and
 * returns the seconds per call, so no ctypes overhead is counted.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PLACES 1024
#define MAX_PIECES 256
#define MAX_EDGES 8192

/* piece flags (static) */
enum { F_CANNON = 1, F_CAVALRY = 2, F_LEADER = 4, F_CUAUHTEMOC = 8, F_CORTES = 16,
       F_GUNBOAT = 32, F_AZTEC = 64 };
/* region flags of a place */
enum { R_TENOCHTITLAN = 1, R_TEPEYAC = 2 };
/* dynamic piece flags */
enum { D_SAILED = 1, D_FINISHED = 2 };
/* readings */
enum { RD_MIN_ANY_POINTS = 1, RD_RATE_ANY_CROSSING = 2, RD_EXIT_ALONG = 4, RD_CANNONS_OPEN = 8 };

static int n_places, n_pieces, n_hexes, move_base, readings;
static int place_hex[MAX_PLACES];          /* hex index, -1 for a place that is no hex */
static int edge_start[MAX_PLACES + 1];     /* CSR: the hex neighbours of each hex, ascending */
static int edge_to[MAX_EDGES];
static unsigned char edge_leaves_city[MAX_EDGES];   /* from in Tenochtitlan, to not (9.2) */
static short edge_cost[4][MAX_EDGES];      /* class = side * 2 + cavalry; -1: never */
static int piece_flags[MAX_PIECES], piece_side[MAX_PIECES];

/* Fold the static clauses into edge_cost. chart[t * 2 + side] is terrain t's
 * cost for a side (7.7; -1 when not a number); terrain[p] a bit mask of place
 * p's terrain; causeway[e] whether edge e crosses a causeway hexside. */
int cl_init(int places, int pieces, int hexes, int base, int reading_flags,
            const int *hex_of_place, const int *starts, const int *targets,
            const unsigned char *causeway, const int *terrain, const unsigned char *region,
            int terrains, const int *chart, int causeway_bit, int quagmire_bit,
            int chinampa_bit, const int *flags, const int *sides) {
    if (places > MAX_PLACES || pieces > MAX_PIECES || starts[places] > MAX_EDGES) return -1;
    n_places = places; n_pieces = pieces; n_hexes = hexes; move_base = base;
    readings = reading_flags;
    memcpy(place_hex, hex_of_place, sizeof(int) * places);
    memcpy(edge_start, starts, sizeof(int) * (places + 1));
    memcpy(edge_to, targets, sizeof(int) * starts[places]);
    memcpy(piece_flags, flags, sizeof(int) * pieces);
    memcpy(piece_side, sides, sizeof(int) * pieces);
    int cw = 1 << causeway_bit, quag = 1 << quagmire_bit, chin = 1 << chinampa_bit;
    for (int from = 0; from < places; from++) {
        for (int e = starts[from]; e < starts[from + 1]; e++) {
            int to = targets[e], crossing = causeway[e];
            int ttr = terrain[to], ftr = terrain[from];
            edge_leaves_city[e] = (region[from] & R_TENOCHTITLAN) && !(region[to] & R_TENOCHTITLAN);
            for (int cls = 0; cls < 4; cls++) {
                int side = cls >> 1, cavalry = cls & 1, cost = -1, number = 1;
                for (int t = 0; t < terrains; t++) {          /* 7.7: the highest */
                    if (!(ttr & (1 << t))) continue;
                    int c = chart[t * 2 + side];
                    if (c < 0) { number = 0; break; }
                    if (c > cost) cost = c;
                }
                if (cost < 0) number = 0;
                int along = (readings & RD_RATE_ANY_CROSSING) ? crossing
                            : ((ftr & cw) && (ttr & cw) && crossing);
                if (along) { cost = chart[causeway_bit * 2 + side]; number = cost >= 0; }  /* 7.16 */
                int banned = !number
                    || (ttr & quag)                                          /* 7.10 */
                    || (cavalry && (ttr & chin) && !crossing)                /* 7.13 */
                    || ((ttr & cw) && !crossing)                             /* 7.16 */
                    || ((readings & RD_EXIT_ALONG) && (ftr & cw) && !crossing)
                    || ((region[to] & R_TEPEYAC) && !(region[from] & R_TEPEYAC) && !crossing); /* 7.17 */
                edge_cost[cls][e] = banned ? -1 : (short)cost;
            }
        }
    }
    return 0;
}

/* The ids of the legal moves of `side`, ascending, into out; returns how many. */
int cl_list(int side, int cuauhtemoc_free, const int *place, const int *move,
            const int *spent, const int *moved, const unsigned char *dynamic,
            const int *start, const unsigned char *closed, int *out) {
    /* Occupancy of each place, by side (0, 1, 2 for no side). */
    static unsigned char count[MAX_PLACES][3], nonleader[MAX_PLACES][3],
        cannons[MAX_PLACES][3], leaders[MAX_PLACES][3], cortes[MAX_PLACES];
    memset(count, 0, sizeof(count[0]) * n_places);
    memset(nonleader, 0, sizeof(nonleader[0]) * n_places);
    memset(cannons, 0, sizeof(cannons[0]) * n_places);
    memset(leaders, 0, sizeof(leaders[0]) * n_places);
    memset(cortes, 0, n_places);
    for (int u = 0; u < n_pieces; u++) {
        int p = place[u], s = piece_side[u], f = piece_flags[u];
        if (p < 0) continue;
        count[p][s]++;
        if (f & F_LEADER) leaders[p][s]++; else nonleader[p][s]++;
        if (f & F_CANNON) cannons[p][s]++;
        if (f & F_CORTES) cortes[p] = 1;
    }
    int n = 0;
    for (int u = 0; u < n_pieces; u++) {
        int f = piece_flags[u], here = place[u];
        if (piece_side[u] != side || here < 0 || place_hex[here] < 0) continue;
        if (f & (F_CANNON | F_GUNBOAT)) continue;                        /* 7.4, 7.19 */
        if (dynamic[u] & (D_SAILED | D_FINISHED)) continue;              /* 7.19, 7.2 */
        if (start[u] >= 0 && closed[start[u]]) continue;                 /* 7.2 */
        int left = move[u] - spent[u];
        int permit = (readings & RD_MIN_ANY_POINTS) ? spent[u] < move[u] : moved[u] == 0;
        const short *costs = edge_cost[side * 2 + ((f & F_CAVALRY) != 0)];
        int held = (f & F_CUAUHTEMOC) && !cuauhtemoc_free;
        int first = move_base + u * n_hexes;
        for (int e = edge_start[here]; e < edge_start[here + 1]; e++) {
            int c = costs[e], to = edge_to[e];
            if (c < 0 || (c > left && !permit)) continue;                /* statics, 7.1, 7.3 */
            if (held && edge_leaves_city[e]) continue;                   /* 9.2 */
            int enemies = count[to][0] + count[to][1] + count[to][2] - count[to][side];
            if (enemies) {                                               /* 7.5 */
                int open = 0;
                if (!(f & F_LEADER) && leaders[to][0] + leaders[to][1] + leaders[to][2]
                                       - leaders[to][side] > 0) {        /* 9.4 */
                    int others = 0;
                    for (int s = 0; s < 3; s++)
                        if (s != side)
                            others += nonleader[to][s] - (cortes[to] ? cannons[to][s] : 0);
                    open = others == 0;
                }
                if (!open && (readings & RD_CANNONS_OPEN) && (f & F_AZTEC)) {  /* 11.6 */
                    open = count[to][0] + count[to][1] + count[to][2]
                           == cannons[to][0] + cannons[to][1] + cannons[to][2];
                }
                if (!open) continue;
            }
            out[n++] = first + place_hex[to];
        }
    }
    return n;
}

/* Seconds per cl_list call, over `calls` calls made here. */
double cl_time(int calls, int side, int cuauhtemoc_free, const int *place, const int *move,
               const int *spent, const int *moved, const unsigned char *dynamic,
               const int *start, const unsigned char *closed, int *out) {
    struct timespec a, b;
    volatile int sink = 0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < calls; i++)
        sink += cl_list(side, cuauhtemoc_free, place, move, spent, moved, dynamic, start,
                        closed, out);
    clock_gettime(CLOCK_MONOTONIC, &b);
    (void)sink;
    return ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9) / calls;
}
