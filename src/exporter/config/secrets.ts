/**
 * Header values kept out of the configuration file: read from files (`headers_file`, Prometheus's
 * `_file` convention) or the environment (`headers_env`) each time the configuration is loaded, so
 * a reload picks up a rotated secret. Problems name the field and the file or variable, never the value.
 */
import { MAX_HEADER_VALUE_BYTES, headerValueProblem, type TargetConfig } from './schema.js';
import { readRegularFile } from '../files.js';

export interface SecretIssue {
  path: (string | number)[];
  message: string;
}

/**
 * The target with its file and environment header values merged into `headers`, or the problems
 * (paths relative to the target). Values are trimmed, as Prometheus trims a credentials_file.
 */
export function resolveTargetSecrets(t: TargetConfig, env: NodeJS.ProcessEnv): { target: TargetConfig; issues: SecretIssue[] } {
  const headers = { ...t.headers };
  const issues: SecretIssue[] = [];
  const take = (path: (string | number)[], name: string, raw: string, where: string): void => {
    const value = raw.trim();
    const problem = value === '' ? `${where} is empty` : headerValueProblem(value);
    if (problem) issues.push({ path, message: value === '' ? problem : `${where}: ${problem}` });
    else headers[name] = value;
  };
  for (const [name, file] of Object.entries(t.headers_file ?? {})) {
    let text: string;
    try {
      text = readRegularFile(file, MAX_HEADER_VALUE_BYTES).toString('utf8');
    } catch (err) {
      issues.push({ path: ['headers_file', name], message: `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}` });
      continue;
    }
    take(['headers_file', name], name, text, file);
  }
  for (const [name, variable] of Object.entries(t.headers_env ?? {})) {
    const raw = env[variable];
    if (raw === undefined) issues.push({ path: ['headers_env', name], message: `environment variable ${variable} is not set` });
    else take(['headers_env', name], name, raw, `environment variable ${variable}`);
  }
  return { target: { ...t, headers }, issues };
}
