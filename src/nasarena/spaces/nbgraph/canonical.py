"""Which NAS-Bench-Graph architectures are one network: the rule behind the package's keys.

The 24 ways of choosing each node's input times 9^4 operations give 157,464 written
architectures; the package's key (``Arch.valid_hash``) maps them onto 26,206 measured networks
(and the 24 all-identity ones onto an unmeasured key). :func:`network_form` states that map as
the network each architecture computes:

1. the computing nodes form a tree rooted at the input (each node reads one earlier node), whose
   leaves feed the output; a network is that tree up to the order of a node's children (the
   output aggregates its inputs without an order), with an operation on every tree node;
2. ``skip`` is the identity: a skip node is removed and its children read its input instead; a
   skip node that is a leaf instead becomes one more output term of its input's value, so
   ``gcn`` read by a skip leaf is ``gcn`` as a leaf, and a node read by a skip leaf and by
   other nodes also feeds the output; how many terms reach the output counts;
3. output terms that carry the input features themselves (reached through skips only) are
   dropped: the package keys ``skip, gat, gat, gat`` all reading the input like ``gat, gat,
   gat`` (it does not connect the input to the output);
4. with no operation other than ``skip`` there is no network (the package's unmeasured key).

The tests check on every one of the 157,464 written architectures (and of the 15,000 of the
proteins operations) that two have the same form exactly when the package gives them the same
key. A form is a nested tuple: ``(branches, outputs)``, where ``branches`` is the sorted tuple
of ``(operation, form of that node)`` of the nodes reading this value and ``outputs`` the
number of output terms of this value.
"""

from __future__ import annotations

from collections import Counter

from .vocabulary import SKIP

Form = tuple


def network_form(links: tuple[int, ...], ops: tuple[str, ...]) -> Form | None:
    """The network of an architecture (see the module), or None when every operation is ``skip``."""
    readers: list[list[int]] = [[] for _ in range(len(links) + 1)]
    for node, link in enumerate(links, start=1):
        readers[link].append(node)

    def value(node: int) -> tuple[list, int]:
        """(branches, output terms) of the value node ``node`` computes."""
        branches, outputs = [], 0 if readers[node] else 1
        for reader in readers[node]:
            if ops[reader - 1] == SKIP:  # the identity passes this value on: its readers read this one
                passed, passed_outputs = value(reader)
                branches += passed
                outputs += passed_outputs
            else:
                below, below_outputs = value(reader)
                branches.append((ops[reader - 1], (tuple(sorted(below)), below_outputs)))
        return branches, outputs

    branches, _ = value(0)  # the input's own output terms are dropped (rule 3)
    return (tuple(sorted(branches)), 0) if branches else None


def paths(form: Form) -> Counter:
    """How many output terms each sequence of operations from the input computes: the paths of
    the BANANAS path encoding, without the identities (a skip changes no path)."""
    found: Counter = Counter()

    def walk(prefix: tuple[str, ...], node: Form) -> None:
        branches, outputs = node
        if outputs:
            found[prefix] += outputs
        for op, below in branches:
            walk(prefix + (op,), below)

    walk((), form)
    return found
