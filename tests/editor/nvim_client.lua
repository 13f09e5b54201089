-- Neovim's own LSP client (0.7+) driving `lablang lsp`: open a file, read the published
-- diagnostics with their codes, hover and go to a definition; the results are written as
-- JSON for tests/editor/test_neovim.py. Paths come from the environment.
local file = vim.env.LABLANG_NVIM_FILE
local out = vim.env.LABLANG_NVIM_OUT
local result = { codes = {}, errors = {} }

local function finish()
  local handle = io.open(out, "w")
  handle:write(vim.fn.json_encode(result))
  handle:close()
  vim.cmd("qa!")
end

local ok, failure = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = "lablang",
    cmd = { vim.env.LABLANG_PYTHON, "-m", "lablang", "lsp" },
    root_dir = vim.fn.fnamemodify(file, ":h"),
  })
  vim.lsp.buf_attach_client(buf, client_id)
  vim.wait(30000, function()
    return #vim.diagnostic.get(buf) > 0
  end, 50)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    table.insert(result.codes, code)
  end
  local client = vim.lsp.get_client_by_id(client_id)
  local uri = vim.uri_from_bufnr(buf)
  local function at(line, character)
    return { textDocument = { uri = uri }, position = { line = line, character = character } }
  end
  local hover = client.request_sync("textDocument/hover", at(2, 7), 20000, buf)
  result.hover = hover and hover.result and hover.result.contents and hover.result.contents.value
  local definition = client.request_sync("textDocument/definition", at(3, 12), 20000, buf)
  local location = definition and definition.result
  if location and location[1] then
    location = location[1]
  end
  result.definition = location and location.uri
  client.stop()
end)
if not ok then
  table.insert(result.errors, tostring(failure))
end
finish()
