import { Json } from '../core/json';

export type BinaryOperator = '+' | '-' | '*' | '/' | '//' | '%' | '^' | '==' | '===' | '!=' | '!==' | '<' | '<=' | '>' | '>=' | 'in';
export type LogicalOperator = '&&' | '||' | '??';
export type UnaryOperator = '-' | '+' | '!';

/**
 * A parsed expression. `position` is an offset for error messages: an operator's own for operators, otherwise the
 * node's first character.
 */
export type Expr =
  | { kind: 'literal'; value: Json; position: number }
  | { kind: 'array'; items: Expr[]; position: number }
  /** `$`, `$$`, `$NEW`, `$DEVICEID`, or a bare name such as `context` in templates. */
  | { kind: 'variable'; name: string; position: number }
  | { kind: 'member'; object: Expr; name: string; position: number }
  | { kind: 'index'; object: Expr; index: Expr; position: number }
  | { kind: 'call'; name: string; args: Expr[]; position: number }
  | { kind: 'unary'; op: UnaryOperator; operand: Expr; position: number }
  | { kind: 'binary'; op: BinaryOperator; left: Expr; right: Expr; position: number }
  | { kind: 'logical'; op: LogicalOperator; left: Expr; right: Expr; position: number }
  | { kind: 'conditional'; test: Expr; then: Expr; otherwise: Expr; position: number };
