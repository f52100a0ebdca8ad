// The tools Claude Code sends (2.x): zod-generated JSON Schema draft-07 for its built-in tools
// (`$schema`, `additionalProperties: false`, `format: uri`, enums, bounded arrays of objects…), and
// plainer schemas for MCP tools. 25 in all, as a real session with a couple of MCP servers has.

type Schema = Record<string, unknown>;

const DRAFT7 = "http://json-schema.org/draft-07/schema#";

function builtin(properties: Record<string, Schema>, required: string[]): Schema {
  return { type: "object", properties, required, additionalProperties: false, $schema: DRAFT7 };
}

const str = (description: string): Schema => ({ type: "string", description });
const num = (description: string): Schema => ({ type: "number", description });
const bool = (description: string): Schema => ({ type: "boolean", description });

export interface ClaudeCodeTool {
  name: string;
  description: string;
  input_schema: Schema;
}

const BUILTIN: ClaudeCodeTool[] = [
  {
    name: "Task",
    description: "Launch a new agent to handle complex, multi-step tasks autonomously.",
    input_schema: builtin(
      {
        description: str("A short (3-5 word) description of the task"),
        prompt: str("The task for the agent to perform"),
        subagent_type: str("The type of specialized agent to use for this task"),
      },
      ["description", "prompt", "subagent_type"],
    ),
  },
  {
    name: "Bash",
    description: "Executes a given bash command in a persistent shell session.",
    input_schema: builtin(
      {
        command: str("The command to execute"),
        timeout: num("Optional timeout in milliseconds (max 600000)"),
        description: str("Clear, concise description of what this command does"),
        run_in_background: bool("Set to true to run this command in the background."),
      },
      ["command"],
    ),
  },
  {
    name: "Glob",
    description: "Fast file pattern matching tool that works with any codebase size.",
    input_schema: builtin(
      { pattern: str("The glob pattern to match files against"), path: str("The directory to search in.") },
      ["pattern"],
    ),
  },
  {
    name: "Grep",
    description: "A powerful search tool built on ripgrep.",
    input_schema: builtin(
      {
        pattern: str("The regular expression pattern to search for in file contents"),
        path: str("File or directory to search in"),
        glob: str('Glob pattern to filter files (e.g. "*.js")'),
        output_mode: {
          type: "string",
          enum: ["content", "files_with_matches", "count"],
          description: "Output mode.",
        },
        "-B": num("Number of lines to show before each match"),
        "-A": num("Number of lines to show after each match"),
        "-C": num("Number of lines to show before and after each match"),
        "-n": bool("Show line numbers in output"),
        "-i": bool("Case insensitive search"),
        type: str("File type to search."),
        head_limit: num("Limit output to first N lines/entries"),
        multiline: bool("Enable multiline mode"),
      },
      ["pattern"],
    ),
  },
  {
    name: "ExitPlanMode",
    description: "Use this tool when you are in plan mode and have finished presenting your plan.",
    input_schema: builtin({ plan: str("The plan you came up with") }, ["plan"]),
  },
  {
    name: "Read",
    description: "Reads a file from the local filesystem.",
    input_schema: builtin(
      {
        file_path: str("The absolute path to the file to read"),
        offset: num("The line number to start reading from."),
        limit: num("The number of lines to read."),
      },
      ["file_path"],
    ),
  },
  {
    name: "Edit",
    description: "Performs exact string replacements in files.",
    input_schema: builtin(
      {
        file_path: str("The absolute path to the file to modify"),
        old_string: str("The text to replace"),
        new_string: str("The text to replace it with (must be different from old_string)"),
        replace_all: { type: "boolean", default: false, description: "Replace all occurences" },
      },
      ["file_path", "old_string", "new_string"],
    ),
  },
  {
    name: "Write",
    description: "Writes a file to the local filesystem.",
    input_schema: builtin(
      { file_path: str("The absolute path to the file to write"), content: str("The content to write") },
      ["file_path", "content"],
    ),
  },
  {
    name: "NotebookEdit",
    description: "Completely replaces the contents of a specific cell in a Jupyter notebook.",
    input_schema: builtin(
      {
        notebook_path: str("The absolute path to the Jupyter notebook file to edit"),
        cell_id: str("The ID of the cell to edit."),
        new_source: str("The new source for the cell"),
        cell_type: { type: "string", enum: ["code", "markdown"], description: "The type of the cell" },
        edit_mode: { type: "string", enum: ["replace", "insert", "delete"], description: "The edit type" },
      },
      ["notebook_path", "new_source"],
    ),
  },
  {
    name: "WebFetch",
    description: "Fetches content from a specified URL and processes it using an AI model.",
    input_schema: builtin(
      {
        url: { type: "string", format: "uri", description: "The URL to fetch content from" },
        prompt: str("The prompt to run on the fetched content"),
      },
      ["url", "prompt"],
    ),
  },
  {
    name: "TodoWrite",
    description: "Use this tool to create and manage a structured task list for your current coding session.",
    input_schema: builtin(
      {
        todos: {
          type: "array",
          description: "The updated todo list",
          items: {
            type: "object",
            properties: {
              content: { type: "string", minLength: 1 },
              status: { type: "string", enum: ["pending", "in_progress", "completed"] },
              activeForm: { type: "string", minLength: 1 },
            },
            required: ["content", "status", "activeForm"],
            additionalProperties: false,
          },
        },
      },
      ["todos"],
    ),
  },
  {
    name: "WebSearch",
    description: "Allows Claude to search the web and use the results to inform responses.",
    input_schema: builtin(
      {
        query: { type: "string", minLength: 2, description: "The search query to use" },
        allowed_domains: { type: "array", items: { type: "string" }, description: "Only these domains" },
        blocked_domains: { type: "array", items: { type: "string" }, description: "Never these domains" },
      },
      ["query"],
    ),
  },
  {
    name: "BashOutput",
    description: "Retrieves output from a running or completed background bash shell.",
    input_schema: builtin(
      {
        bash_id: str("The ID of the background shell to retrieve output from"),
        filter: str("Optional regular expression to filter the output lines."),
      },
      ["bash_id"],
    ),
  },
  {
    name: "KillShell",
    description: "Kills a running background bash shell by its ID.",
    input_schema: builtin({ shell_id: str("The ID of the background shell to kill") }, ["shell_id"]),
  },
  {
    name: "SlashCommand",
    description: "Execute a slash command within the main conversation.",
    input_schema: builtin(
      { command: str('The slash command to execute with its arguments, e.g., "/review-pr 123"') },
      ["command"],
    ),
  },
  {
    name: "AskUserQuestion",
    description: "Ask the user questions during execution.",
    input_schema: builtin(
      {
        questions: {
          type: "array",
          minItems: 1,
          maxItems: 4,
          items: {
            type: "object",
            properties: {
              question: str("The complete question to ask the user."),
              header: str("Very short label displayed as a chip/tag (max 12 chars)."),
              options: {
                type: "array",
                minItems: 2,
                maxItems: 4,
                items: {
                  type: "object",
                  properties: { label: str("The display text"), description: str("What this option means") },
                  required: ["label", "description"],
                  additionalProperties: false,
                },
              },
              multiSelect: bool("Set to true to allow the user to select multiple options"),
            },
            required: ["question", "header", "options", "multiSelect"],
            additionalProperties: false,
          },
        },
      },
      ["questions"],
    ),
  },
  {
    name: "Skill",
    description: "Execute a skill within the main conversation.",
    input_schema: builtin({ skill: str('The skill name (no arguments). E.g., "pdf" or "xlsx"') }, ["skill"]),
  },
  {
    name: "EnterPlanMode",
    description: "Use this tool when you need to plan before acting.",
    input_schema: builtin({}, []),
  },
];

/** MCP servers' tools: their own schemas, without `$schema` (some Gemini can take as Schema). */
const MCP: ClaudeCodeTool[] = [
  {
    name: "mcp__github__create_issue",
    description: "Create a new issue in a GitHub repository",
    input_schema: {
      type: "object",
      properties: {
        owner: { type: "string", description: "Repository owner" },
        repo: { type: "string", description: "Repository name" },
        title: { type: "string", description: "Issue title" },
        body: { type: "string", description: "Issue body" },
        labels: { type: "array", items: { type: "string" }, description: "Labels to apply" },
      },
      required: ["owner", "repo", "title"],
    },
  },
  {
    name: "mcp__github__get_pull_request",
    description: "Get details of a specific pull request",
    input_schema: {
      type: "object",
      properties: {
        owner: { type: "string" },
        repo: { type: "string" },
        pull_number: { type: "integer", description: "Pull request number" },
      },
      required: ["owner", "repo", "pull_number"],
    },
  },
  {
    name: "mcp__github__search_code",
    description: "Search for code across GitHub repositories",
    input_schema: {
      type: "object",
      properties: {
        q: { type: "string", description: "Search query" },
        order: { type: "string", enum: ["asc", "desc"] },
        per_page: { type: "number", minimum: 1, maximum: 100 },
      },
      required: ["q"],
    },
  },
  {
    name: "mcp__filesystem__list_directory",
    description: "Get a detailed listing of all files and directories in a specified path.",
    input_schema: {
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
      additionalProperties: false,
      $schema: DRAFT7,
    },
  },
  {
    name: "mcp__filesystem__search_files",
    description: "Recursively search for files and directories matching a pattern.",
    input_schema: {
      type: "object",
      properties: {
        path: { type: "string" },
        pattern: { type: "string" },
        excludePatterns: { type: "array", items: { type: "string" }, default: [] },
      },
      required: ["path", "pattern"],
      additionalProperties: false,
      $schema: DRAFT7,
    },
  },
  {
    name: "mcp__context7__resolve_library_id",
    description: "Resolves a package name to a Context7-compatible library ID.",
    input_schema: {
      type: "object",
      properties: { libraryName: { type: "string", description: "Library name to search for" } },
      required: ["libraryName"],
    },
  },
  {
    name: "mcp__context7__get_library_docs",
    description: "Fetches up-to-date documentation for a library.",
    input_schema: {
      type: "object",
      properties: {
        context7CompatibleLibraryID: { type: "string" },
        topic: { type: "string" },
        tokens: { type: "number" },
      },
      required: ["context7CompatibleLibraryID"],
    },
  },
];

export const CLAUDE_CODE_TOOLS: ClaudeCodeTool[] = [...BUILTIN, ...MCP];
