"""What the node scenarios call besides the agent's own helpers: a command, and files the
project gets through one (bytes an agent's write cannot carry, many files at once)."""

from __future__ import annotations

import json

from harness.agent import Agent, assert_success


def run(agent: Agent, command: str, args: list[str] | None = None, timeout_ms: int | None = None) -> dict:
    """node_run_command's result as it comes (a timeout is a failure with output)."""
    arguments: dict = {"command": command}
    if args is not None:
        arguments["args"] = args
    if timeout_ms is not None:
        arguments["timeoutMs"] = timeout_ms
    return agent.client.call("node_run_command", arguments)


def node_script(agent: Agent, code: str) -> dict:
    """`node -e <code>` that must end with exit code 0 (a step, not a check)."""
    result = run(agent, "node", ["-e", code])
    assert_success("node_run_command", result)
    assert result["exitCode"] == 0, f"node -e {code[:120]!r} ended with {result['exitCode']}: {result['output'][-500:]}"
    return result


def write_bytes(agent: Agent, path: str, data: bytes) -> None:
    """A file of exactly these bytes, written by a Node program (the write operation takes text)."""
    node_script(
        agent,
        "const fs = require('fs'), path = require('path');"
        f"fs.mkdirSync(path.dirname({json.dumps(path)}), {{ recursive: true }});"
        f"fs.writeFileSync({json.dumps(path)}, new Uint8Array({json.dumps(list(data))}));",
    )


def write_size(agent: Agent, path: str, size: int) -> None:
    """A text file of `size` bytes ("a" repeated)."""
    node_script(
        agent,
        "const fs = require('fs'), path = require('path');"
        f"fs.mkdirSync(path.dirname({json.dumps(path)}), {{ recursive: true }});"
        f"fs.writeFileSync({json.dumps(path)}, 'a'.repeat({size}));",
    )


def write_many(agent: Agent, folder: str, count: int) -> None:
    """`count` small files in `folder`."""
    node_script(
        agent,
        f"const fs = require('fs'); fs.mkdirSync({json.dumps(folder)}, {{ recursive: true }});"
        f"for (let i = 0; i < {count}; i++) fs.writeFileSync({json.dumps(folder)} + '/f' + i + '.txt', String(i));",
    )
