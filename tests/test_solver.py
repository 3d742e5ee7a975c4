"""Exact Connect Four solver: Pons' test sets, brute force, input validation, symmetry, the book."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_scripts import load_script

from games.connect4.book import load_book
from games.connect4.solver import (
    COLUMN_BITS,
    HEIGHT,
    MIN_SCORE,
    NUM_CELLS,
    WIDTH,
    Solver,
    analyze,
    parse_moves,
    solve,
)

# Pons' sets: (file, positions checked by default). The rest run under ``slow``.
FAST_SUBSET = {
    "Test_L3_R1": 1000,
    "Test_L2_R1": 1000,
    "Test_L1_R1": 1000,
    "Test_L2_R2": 200,
    "Test_L1_R2": 10,
}


@pytest.fixture(scope="module")
def solver() -> Solver:
    """No book, so the search itself is checked; one table shared by the module's tests."""
    return Solver(use_book=False)


def read_set(folder, name):
    rows = [line.split() for line in (folder / name).read_text().splitlines() if line.strip()]
    return [r[0] for r in rows], np.array([int(r[1]) for r in rows], dtype=np.int64)


# --------------------------------------------------------------------------- known values
def test_pons_examples(solver):
    assert solver.solve("4455") == 18  # the side to move wins with its 4th stone
    assert solver.solve("44455554221") == -15  # the opponent wins next move with its 7th stone
    assert solver.solve("6146") == 18
    assert solver.solve("32164625") == 11


def test_immediate_win_and_forced_loss(solver):
    # first player to move with three stones in column 1: wins with its 4th stone
    assert solver.solve("121212") == 18
    # second player to move; the first threatens both ends of its row 3-4-5: it wins with its 4th stone
    assert solver.solve("33445") == -18
    assert solver.analyze("33445") == [-18, -18, -18, -18, -18, -18, -18]


#: A 42-move game without four in a row (found by seeded random play).
DRAWN_GAME = "666165577462463234152541333211132724554777"


def test_full_board_and_last_move():
    s = Solver(tt_size=(1 << 17) + 1, use_book=False)
    assert s.solve(DRAWN_GAME) == 0
    assert s.analyze(DRAWN_GAME) == [None] * WIDTH
    assert s.solve(DRAWN_GAME[:-1]) == 0
    assert s.analyze(DRAWN_GAME[:-1]) == [None] * 6 + [0]


# --------------------------------------------------------------------------- Pons' test sets
@pytest.mark.parametrize("name", list(FAST_SUBSET))
def test_pons_sets_fast_subset(connect4_test_sets, solver, name):
    moves, expected = read_set(connect4_test_sets, name)
    n = FAST_SUBSET[name]
    scores, nodes = solver.solve_many(moves[:n])
    wrong = [(m, int(s), int(e)) for m, s, e in zip(moves[:n], scores, expected[:n]) if s != e]
    assert wrong == []
    assert (nodes > 0).all()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Test_L2_R2", "Test_L1_R2"])
def test_pons_sets_full(connect4_test_sets, solver, name):
    moves, expected = read_set(connect4_test_sets, name)
    start = FAST_SUBSET[name]
    scores, _ = solver.solve_many(moves[start:])
    wrong = [(m, int(s), int(e)) for m, s, e in zip(moves[start:], scores, expected[start:]) if s != e]
    assert wrong == []
    assert len(scores) == len(moves) - start


@pytest.mark.slow
def test_pons_begin_hard_sample(connect4_test_sets, solver):
    """Ten Test_L1_R3 positions of 6+ plies (about 1-10 s each without a book)."""
    moves, expected = read_set(connect4_test_sets, "Test_L1_R3")
    picked = [i for i, m in enumerate(moves[:60]) if len(m) >= 6][:10]
    scores, _ = solver.solve_many([moves[i] for i in picked])
    assert scores.tolist() == expected[picked].tolist()


@pytest.mark.slow
def test_pons_begin_hard_with_book(connect4_test_sets):
    """With the opening book, early Test_L1_R3 positions (up to the book's depth + 1) solve exactly."""
    s = Solver(use_book=True)
    if s.book_depth < 1:
        pytest.skip("no opening book shipped")
    moves, expected = read_set(connect4_test_sets, "Test_L1_R3")
    picked = [i for i, m in enumerate(moves) if len(m) <= s.book_depth][:20]
    assert picked
    scores, _ = s.solve_many([moves[i] for i in picked])
    assert scores.tolist() == expected[picked].tolist()


def test_node_counts_close_to_pons(connect4_test_sets):
    """Pons' mean nodes are 51 (Test_L3_R1), 450 (Test_L2_R1), 3,300 (Test_L1_R1); ours within 1.5x."""
    s = Solver(use_book=False)
    for name, pons_mean in (("Test_L3_R1", 51), ("Test_L2_R1", 450), ("Test_L1_R1", 3300)):
        moves, _ = read_set(connect4_test_sets, name)
        _, nodes = s.solve_many(moves)
        assert nodes.mean() <= 1.5 * pons_mean, (name, nodes.mean())


# --------------------------------------------------------------------------- brute force
def brute_force_value(position: int, mask: int, ply: int) -> int:
    """Plain negamax over the whole remaining tree (no pruning, no table), Pons' scores."""
    if ply == NUM_CELLS:
        return 0
    best = None
    for col in range(WIDTH):
        value = brute_force_move(position, mask, ply, col)
        if value is not None and (best is None or value > best):
            best = value
    return best


def brute_force_move(position: int, mask: int, ply: int, col: int) -> int | None:
    if mask & (1 << (HEIGHT - 1 + col * COLUMN_BITS)):
        return None
    move = (mask + (1 << (col * COLUMN_BITS))) & (((1 << HEIGHT) - 1) << (col * COLUMN_BITS))
    mine = position | move
    for s in (1, COLUMN_BITS, COLUMN_BITS - 1, COLUMN_BITS + 1):
        m = mine & (mine >> s)
        if m & (m >> (2 * s)):
            return (NUM_CELLS + 1 - ply) // 2
    return -brute_force_value(position ^ mask, mask | move, ply + 1)


def random_late_positions(count: int, ply: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        moves = ""
        while len(moves) < ply:
            legal = [c for c in range(1, 8) if moves.count(str(c)) < HEIGHT]
            candidate = moves + str(rng.choice(legal))
            try:
                parse_moves(candidate)
            except ValueError:  # that move won: start a new game
                break
            moves = candidate
        if len(moves) == ply:
            out.append(moves)
    return out


@pytest.mark.parametrize("ply,seed", [(34, 1), (35, 2), (36, 3)])
def test_analyze_matches_brute_force(solver, ply, seed):
    for moves in random_late_positions(12, ply, seed):
        p = parse_moves(moves)
        expected = [brute_force_move(p.position, p.mask, p.num_moves, c) for c in range(WIDTH)]
        assert solver.analyze(moves) == expected, moves
        legal = [e for e in expected if e is not None]
        assert solver.solve(moves) == max(legal)


@pytest.mark.parametrize("ply,seed", [(33, 4), (36, 5)])
def test_optimal_moves_match_brute_force(solver, ply, seed):
    for moves in random_late_positions(12, ply, seed):
        p = parse_moves(moves)
        expected = [brute_force_move(p.position, p.mask, p.num_moves, c) for c in range(WIDTH)]
        best = max(e for e in expected if e is not None)
        score, optimal = solver.optimal_moves(moves)
        assert score == best, moves
        assert optimal.tolist() == [e == best for e in expected], moves


@pytest.mark.parametrize("name,limit", [("end_easy", 200), ("middle_easy", 200), ("middle_medium", 40)])
def test_optimal_moves_match_the_labelled_sets(solver, name, limit):
    from arena.positions.connect4 import load_position_set

    labelled = load_position_set(name)
    for i, moves in enumerate(labelled.moves[:limit]):
        score, optimal = solver.optimal_moves(moves)
        assert score == labelled.values[i], moves
        assert optimal.tolist() == labelled.optimal_mask[i].tolist(), moves


def test_optimal_moves_immediate_win_and_last_cell(solver):
    # X holds 4, 5, 6 on the bottom row: columns 3 and 7 win at once, score (42 + 1 - 6) // 2 = 18
    score, optimal = solver.optimal_moves("445566")
    assert score == 18
    assert optimal.tolist() == [False, False, True, False, False, False, True]
    score, optimal = solver.optimal_moves(DRAWN_GAME[:-1])  # one cell left, filling it draws
    assert (score, optimal.tolist()) == (0, [False] * 6 + [True])
    with pytest.raises(ValueError, match="board is full"):
        solver.optimal_moves(DRAWN_GAME)


# --------------------------------------------------------------------------- API behaviour
@pytest.mark.parametrize(
    "moves,words",
    [
        ("", "empty"),
        ("4459", "move 4: character '9'"),
        ("440", "move 3: character '0'"),
        ("4 4", "move 2: character ' '"),
        ("1111111", "move 7: column 1 is already full"),
        ("1212121", "move 7: column 1 makes four in a row"),
        ("12121213", "move 7: column 1 makes four in a row"),
    ],
)
def test_bad_input_raises(moves, words):
    with pytest.raises(ValueError, match=words):
        solve(moves)
    with pytest.raises(ValueError, match=words):
        analyze(moves)


def test_non_string_input_raises():
    with pytest.raises(ValueError, match="must be a str"):
        parse_moves(4455)


def test_bad_tt_size_raises():
    with pytest.raises(ValueError, match="at least 1024"):
        Solver(tt_size=1000, use_book=False)
    with pytest.raises(ValueError, match="at least 1024"):
        Solver(tt_size=2.5e6, use_book=False)


def test_solve_many_names_bad_position(solver):
    with pytest.raises(ValueError, match="position 1: move 1"):
        solver.solve_many(["44", "8"])


def test_empty_board_needs_allow_empty():
    p = parse_moves("", allow_empty=True)
    assert (p.position, p.mask, p.num_moves) == (0, 0, 0)


def test_mirror_positions_score_alike(solver):
    plain = Solver(tt_size=(1 << 20) + 1, use_book=False, use_mirror=False)
    for moves in random_late_positions(20, 20, seed=7):
        mirrored = "".join(str(8 - int(c)) for c in moves)
        value = solver.solve(moves)
        assert solver.solve(mirrored) == value
        assert plain.solve(moves) == value
        assert solver.analyze(mirrored) == solver.analyze(moves)[::-1]


def test_table_is_kept_between_calls():
    s = Solver(tt_size=(1 << 20) + 1, use_book=False)
    s.solve("4455")
    first = s.solve("44455554221")
    nodes_first = s.node_count
    assert s.solve("44455554221") == first
    assert 0 < s.node_count <= nodes_first
    s.reset()
    assert not s.table.any()


# --------------------------------------------------------------------------- opening book
def test_book_is_well_formed():
    keys, values, depth = load_book()
    if depth < 0:
        pytest.skip("no opening book shipped")
    assert keys.dtype == np.int64 and values.dtype == np.int8
    assert np.all(np.diff(keys) > 0)
    assert 0 in keys  # the empty board (key 0)
    assert values.min() >= 1 and values.max() <= 37


def test_book_empty_board_value():
    """Allis (1988) / Pons: the first player wins, with its last (21st) stone, by playing the centre."""
    s = Solver(use_book=True)
    if s.book_depth < 1:
        pytest.skip("no opening book deep enough")
    assert s.solve("", allow_empty=True) == 1
    assert s.analyze("", allow_empty=True) == [-2, -1, 0, 1, 0, -1, -2]


def test_book_values_back_up(solver):
    """Every book entry above the deepest ply is the negamax of its children's book entries."""
    keys, values, depth = load_book()
    if depth < 1:
        pytest.skip("no opening book deep enough")
    table = dict(zip(keys.tolist(), (values.astype(np.int64) + MIN_SCORE - 1).tolist()))

    def canonical(position, mask):
        key = position + mask
        mirror = sum(
            ((key >> (c * COLUMN_BITS)) & 0x7F) << ((WIDTH - 1 - c) * COLUMN_BITS) for c in range(WIDTH)
        )
        return min(key, mirror)

    frontier = [parse_moves("", allow_empty=True)]
    for ply in range(depth):
        next_frontier = []
        for p in frontier:
            best = None
            for col in range(WIDTH):
                move = (p.mask + (1 << (col * COLUMN_BITS))) & (((1 << HEIGHT) - 1) << (col * COLUMN_BITS))
                child = (p.position ^ p.mask, p.mask | move)
                value = -table[canonical(*child)]
                best = value if best is None else max(best, value)
                if ply + 1 < depth:
                    next_frontier.append(parse_moves_from_bits(*child, ply + 1))
            assert table[canonical(p.position, p.mask)] == best
        frontier = next_frontier[:200]


def parse_moves_from_bits(position, mask, ply):
    from games.connect4.solver import Position

    return Position(position, mask, ply)


@pytest.mark.slow
def test_book_deepest_entry_matches_search(solver):
    """One entry of the deepest book ply, re-solved from scratch without the book (a minute or so)."""
    depth = load_book()[2]
    if depth < 1:
        pytest.skip("no opening book shipped")
    moves = "".join("4536271"[i % 7] for i in range(depth))
    assert solver.solve(moves) == Solver(use_book=True).solve(moves)


def test_book_builder_on_a_subtree(tmp_path):
    """scripts/build_opening_book.py below a late root: every stored value is the searched value."""
    builder = load_script("build_opening_book")
    root = "4444443333332222"
    out = tmp_path / "book.npz"
    assert builder.main(["--root", root, "--depth", "18", "--output", str(out), "--report-every", "100"]) == 0
    keys, values, depth = load_book(out)
    assert depth == 18 and len(keys) == 1 + 3 + 15  # one per mirror pair at plies 16, 17, 18
    assert values.min() >= 1 and values.max() <= 37
    plain = Solver(tt_size=(1 << 20) + 7, use_book=False)
    booked = Solver(tt_size=(1 << 20) + 7, book_path=out)
    assert booked.book_depth == 18
    positions = [root] + [root + c for c in "1567"] + [root + a + b for a in "1567" for b in "1567"]
    checked = 0
    for moves in positions:
        try:
            p = parse_moves(moves)
        except ValueError:  # the last move won: not a position to solve
            continue
        checked += 1
        assert booked.solve(moves) == plain.solve(moves), moves
        if p.num_moves <= 18:
            assert booked.node_count <= 2  # answered by the book at the root
    assert checked >= 10
    # mirror images share book entries, also for a solver that does not mirror its table
    unmirrored = Solver(tt_size=1031, use_mirror=False, book_path=out)
    mirrored_root = "".join(str(8 - int(c)) for c in root)
    assert unmirrored.solve(mirrored_root) == plain.solve(root)
    assert unmirrored.node_count <= 2
    with pytest.raises(SystemExit):
        builder.main(["--root", "4x", "--depth", "3", "--output", str(out)])


@pytest.mark.parametrize(
    "keys,values,words",
    [
        ([5, 3], [1, 1], "strictly increasing"),
        ([3, 5], [1], "must be equal 1-d shapes"),
        ([3, 5], [1, 40], "values must lie in 1..37"),
    ],
)
def test_malformed_book_raises(tmp_path, keys, values, words):
    path = tmp_path / "book.npz"
    np.savez(
        path, keys=np.array(keys, dtype=np.int64), values=np.array(values, dtype=np.int8), depth=np.int64(2)
    )
    with pytest.raises(ValueError, match=words):
        load_book(path)
    with pytest.raises(ValueError, match=words):
        Solver(tt_size=1031, book_path=path)


def test_missing_book_file_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_book(tmp_path / "absent.npz")
