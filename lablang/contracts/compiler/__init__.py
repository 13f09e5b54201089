"""The contract compiler's parts, one concern each, layered as one class: `types`
(parameters, types, diagnostics), `expressions` (expressions and their typing),
`operations` (operations, `wait`, pairs) and `contract` (one declaration to a model).
The stage's public verb stays `lablang.contracts.front.compile_contracts`."""
