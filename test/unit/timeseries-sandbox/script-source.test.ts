import { expect } from 'chai';
import { containsReturnStatement, POINT_PARAMETERS, wrapScript } from '../../../src/timeseries/sandbox/script-source';

/** How a js_* script becomes a function (reference §6.5, after the module's ScriptBuilder). */
describe('script source: expression or function body', () => {
  it('takes a script with a return statement as the function body', () => {
    expect(containsReturnStatement('var x = value * 2;\nreturn x')).to.equal(true);
    expect(containsReturnStatement('return(value)')).to.equal(true);
    expect(containsReturnStatement('if (value > 1) return 1; else return 0')).to.equal(true);
    expect(containsReturnStatement('{return;}')).to.equal(true);
  });

  it('takes a script without one as an expression, not fooled by identifiers that contain "return"', () => {
    expect(containsReturnStatement('value * 3.0')).to.equal(false);
    expect(containsReturnStatement('returned + value')).to.equal(false);
    expect(containsReturnStatement('o.return')).to.equal(false);
    expect(containsReturnStatement('$return + _return')).to.equal(false);
  });

  it('parenthesises an expression, dropping trailing semicolons and ending it before a newline', () => {
    expect(wrapScript('value > 5;;\n', POINT_PARAMETERS).source).to.equal('(function (value, timestamp) { return (value > 5\n); })');
    expect(wrapScript('value * 2 // doubled', POINT_PARAMETERS).source).to.equal('(function (value, timestamp) { return (value * 2 // doubled\n); })');
  });

  it('puts a body in the function as it is', () => {
    expect(wrapScript('return value', POINT_PARAMETERS).source).to.equal('(function (value, timestamp) {return value\n})');
  });

  it('keeps the script on line 1 so QuickJS line numbers are the script\'s own', () => {
    const wrapped = wrapScript('var x = value;\nreturn x + timestamp', POINT_PARAMETERS);
    expect(wrapped.source.split('\n')[1]).to.equal('return x + timestamp');
    expect(wrapped.lineCount).to.equal(2);
    expect(wrapped.source.slice(wrapped.firstLineOffset)).to.match(/^var x = value;/);
  });
});
