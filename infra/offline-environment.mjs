/**
 * An osls plugin for serverless-offline (`npm run offline`; infra/README.md, "Running offline").
 *
 * serverless-offline runs each function with the environment serverless.yml resolves to, not the
 * one the CloudFormation template gives it, so what `serverless package` and CloudFormation do in
 * between never happens there. Before serverless-offline reads the functions, this does it:
 *   - a variable that resolved to null is left out, as `serverless package` strips null properties
 *     from the template (an optional setting nobody gave, `${param:..., null}`); serverless-offline
 *     would hand the function the string "null";
 *   - Fn::If on one of the template's Conditions is decided when the condition compares plain
 *     values, as CloudFormation decides it (without a sender, PASSLANE_SES_IDENTITY_ARN is '');
 *   - a secret whose value this process's environment holds (PASSLANE_PEPPER_KEYS) takes the place
 *     of its SSM parameter's name (PASSLANE_PEPPER_KEYS_PARAMETER), in the functions that name that
 *     parameter only: a deployed function holds one or the other, and the parameter is in AWS;
 *   - anything else only CloudFormation fills in (Ref, Fn::Sub, Fn::GetAtt, a `{{resolve:...}}`
 *     dynamic reference), in a variable or in the JWT authorizer's issuerUrl, is refused, naming
 *     the function and the variable, instead of reaching a function as "[object Object]": offline
 *     it needs a plain value, which its setting's --param gives.
 * It hooks serverless-offline's start only: `serverless package` and deploy never run it.
 */

/** What an environment value becomes offline: a plain value, or left out. */
const LEFT_OUT = Symbol('left out');

/** `<VARIABLE>_PARAMETER` names an SSM parameter that holds `<VARIABLE>` (runtimes/lambda/load-secrets.ts). */
const PARAMETER_SUFFIX = '_PARAMETER';

/** A value only CloudFormation can fill in. */
class Unresolvable extends Error {}

export default class OfflineEnvironment {
  /**
   * @param {{ service: { provider: { environment?: Record<string, unknown>; httpApi?: { authorizers?: Record<string, { issuerUrl?: unknown }> } }; functions?: Record<string, { environment?: Record<string, unknown> }>; resources?: { Conditions?: Record<string, unknown> } }; classes: { Error: new (message: string) => Error } }} serverless
   * @param {unknown} _options
   * @param {unknown} _utils
   * @param {Readonly<Record<string, string | undefined>>} [localEnv] where local secret values are read (this process's environment)
   */
  constructor(serverless, _options, _utils, localEnv = process.env) {
    this.serverless = serverless;
    this.localEnv = localEnv;
    this.prepared = false;
    const prepare = () => this.prepare();
    // `osls offline` runs the first, `osls offline start` the second.
    this.hooks = { 'before:offline:start': prepare, 'before:offline:start:init': prepare };
  }

  /** Rewrites every function's environment in place, or throws naming each value it cannot give. */
  prepare() {
    if (this.prepared) return;
    this.prepared = true;
    const { service } = this.serverless;
    const conditions = service.resources?.Conditions ?? {};
    const problems = [];
    const plain = (where, value) => {
      try {
        return resolve(value, conditions);
      } catch (error) {
        if (!(error instanceof Unresolvable)) throw error;
        problems.push(`${where} is ${error.message}`);
        return LEFT_OUT;
      }
    };

    if (service.provider.environment) service.provider.environment = this.environment(service.provider.environment, 'provider.environment:', plain);
    for (const [name, fn] of Object.entries(service.functions ?? {})) {
      if (fn.environment) fn.environment = this.environment(fn.environment, `function ${name}:`, plain);
    }
    for (const [name, authorizer] of Object.entries(service.provider.httpApi?.authorizers ?? {})) {
      if (authorizer.issuerUrl === undefined) continue;
      const issuerUrl = plain(`authorizer ${name}: issuerUrl`, authorizer.issuerUrl);
      if (issuerUrl === LEFT_OUT) delete authorizer.issuerUrl;
      else authorizer.issuerUrl = issuerUrl;
    }
    if (problems.length > 0) {
      throw new this.serverless.classes.Error(
        `serverless-offline cannot give the functions what only CloudFormation fills in at deploy:\n  ${problems.join('\n  ')}\n` +
          'Give each its plain value with its setting\'s --param (serverless.yml\'s custom section names them; ' +
          '`npm run offline` gives jwtIssuer and jwtPublicKeys, and with mailFrom set, also give sesIdentityArn).',
      );
    }
  }

  /** One environment map: null left out, conditions decided, local secrets in place of their parameters. */
  environment(variables, where, plain) {
    const result = {};
    for (const [name, value] of Object.entries(variables)) {
      const resolved = plain(`${where} ${name}`, value);
      if (resolved !== LEFT_OUT) result[name] = resolved;
    }
    for (const name of Object.keys(result)) {
      if (!name.endsWith(PARAMETER_SUFFIX)) continue;
      const secret = name.slice(0, -PARAMETER_SUFFIX.length);
      const local = this.localEnv[secret]?.trim();
      if (!local) continue;
      delete result[name];
      result[secret] = local;
    }
    return result;
  }
}

/** `value` as CloudFormation would give it, where that needs nothing but the template itself. */
function resolve(value, conditions) {
  if (value === null) return LEFT_OUT;
  if (typeof value === 'string') {
    if (value.includes('{{resolve:')) throw new Unresolvable(`a dynamic reference (${value}), resolved at deploy`);
    return value;
  }
  if (typeof value !== 'object') return String(value);
  const [intrinsic, argument] = Object.entries(value)[0] ?? [];
  if (intrinsic === 'Ref' && argument === 'AWS::NoValue') return LEFT_OUT;
  if (intrinsic === 'Fn::If' && Array.isArray(argument) && argument.length === 3) {
    const [condition, whenTrue, whenFalse] = argument;
    return resolve(decide({ Condition: condition }, conditions) ? whenTrue : whenFalse, conditions);
  }
  throw new Unresolvable(intrinsic === 'Ref' ? `Ref ${argument}` : (intrinsic ?? 'an empty object'));
}

/** A condition over plain values (Fn::Equals, Fn::Not, Fn::And, Fn::Or, Condition), or Unresolvable. */
function decide(expression, conditions) {
  const [operator, argument] = Object.entries(expression ?? {})[0] ?? [];
  const all = Array.isArray(argument) ? argument : [];
  switch (operator) {
    case 'Condition':
      if (!(argument in conditions)) throw new Unresolvable(`a condition the template does not define (${argument})`);
      return decide(conditions[argument], conditions);
    case 'Fn::Equals': {
      const [left, right] = all.map((side) => resolve(side, conditions));
      return left === right;
    }
    case 'Fn::Not':
      return !decide(all[0], conditions);
    case 'Fn::And':
      return all.every((inner) => decide(inner, conditions));
    case 'Fn::Or':
      return all.some((inner) => decide(inner, conditions));
    default:
      throw new Unresolvable(`a condition on ${operator ?? 'nothing'}, decided at deploy`);
  }
}
