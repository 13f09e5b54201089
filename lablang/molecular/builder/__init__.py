"""The parts of the molecular builder (`lablang.molecular.front`), one per kind of declaration.

Each part is a class adding one concern to the one before it: `Declarations`
(segments, oligos, sequences) -> `Arguments` (a step's call, checked against the
operation registry) -> `Derivation` (workflows) -> `DeclaredChecks` (declared states
and transitions) -> `Libraries` (libraries and reads); `front._Builder` puts them in
order.
"""
