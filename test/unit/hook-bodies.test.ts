import { expect } from 'chai';
import { Json } from '../../src/core/json';
import { fillJson, jsonShapeOf } from '../../src/expressions/json-template';
import { parseTemplate } from '../../src/expressions/template';
import { FilledBody, hookBody } from '../../src/triggers/hook-body';

const INJECTION = 'x","injected":true,"y":"z';
const TRICKY = 'say "hi" \\ back\\slash\nnew line\ttab \u0000 é ✓ 😀 \u2028 </script>';

const vars = new Map<string, Json>([
  ['$NEW', { s: INJECTION, tricky: TRICKY, temp: 31.5, on: true, none: null, list: [1, 'two'], place: { room: 'bed "1"' }, json: '{"a":1}' }],
  ['$DEVICEID', 'dev-1'],
  ['msg', 'hot & humid = yes'],
  ['context', { msg: 'bedroom at 31.5 C' }],
]);

/** Fills a body template as a hook does; fails the test when the template is refused. */
function fill(source: string, contentType?: string): FilledBody {
  const body = hookBody(source, contentType);
  if ('problem' in body) throw new Error(`refused: ${body.problem}`);
  return body.fill(vars);
}

const problemOf = (source: string, contentType?: string) => {
  const body = hookBody(source, contentType);
  return 'problem' in body ? body.problem : undefined;
};

describe('hook bodies: templates safe by construction (issue 20 §4)', () => {
  describe('jsonShapeOf', () => {
    it('tells holes inside string literals from holes standing as values', () => {
      const shape = jsonShapeOf(parseTemplate('{"t":"a {{x}} \\" {{y}}","v":{{z}},"k":[{{w}}, "\\\\{{q}}"],"{{key}}":1}'));

      expect(shape.isJson).to.equal(true);
      expect(shape.roles).to.deep.equal(['in-string', 'in-string', 'value', 'value', 'in-string', 'in-string']);
    });

    it('is not JSON when a hole does not stand alone as a value', () => {
      for (const source of ['{"v":1{{x}}}', '{"v":{{x}}{{y}}}', '{"v":-{{x}}}', '{"v":"\\{{x}}"}', '{"a":"b"{{x}}}', '{"v":{{x}}']) {
        expect(jsonShapeOf(parseTemplate(source)).isJson, source).to.equal(false);
      }
    });
  });

  describe('fillJson', () => {
    it('fills a string hole as escaped content, so a value cannot add members', () => {
      const template = parseTemplate('{"text":"{{$NEW.s}}"}');

      const text = fillJson(template, jsonShapeOf(template).roles, vars);

      expect(JSON.parse(text)).to.deep.equal({ text: INJECTION });
    });

    it('keeps quotes, backslashes, line breaks, control characters and unicode intact', () => {
      const template = parseTemplate('{"text":"<{{$NEW.tricky}}>","obj":"{{$NEW.place}}"}');

      const parsed = JSON.parse(fillJson(template, jsonShapeOf(template).roles, vars));

      expect(parsed).to.deep.equal({ text: `<${TRICKY}>`, obj: '{"room":"bed \\"1\\""}' });
    });

    it('fills a value hole with one JSON value of the value\'s type', () => {
      const template = parseTemplate('{"temp":{{$NEW.temp}},"on":{{$NEW.on}},"none":{{$NEW.none}},"absent":{{$NEW.x}},"list":{{$NEW.list}},"place":{{$NEW.place}},"s":{{$NEW.s}},"json":{{$NEW.json}}}');

      const parsed = JSON.parse(fillJson(template, jsonShapeOf(template).roles, vars));

      expect(parsed).to.deep.equal({ temp: 31.5, on: true, none: null, absent: null, list: [1, 'two'], place: { room: 'bed "1"' }, s: INJECTION, json: '{"a":1}' });
    });
  });

  describe('hookBody', () => {
    it('fills the documented examples as before', () => {
      expect(JSON.parse(fill('{"text":"{{context.msg}}","temp":{{$NEW.temp}}}').text)).to.deep.equal({ text: 'bedroom at 31.5 C', temp: 31.5 });
      expect(fill('{{msg}}')).to.deep.equal({ text: 'hot & humid = yes', contentType: 'text/plain; charset=utf-8' });
      expect(fill('temp={{$NEW.temp}}')).to.deep.equal({ text: 'temp=31.5', contentType: 'text/plain; charset=utf-8' });
      expect(fill('{{$NEW.temp}} at {{$DEVICEID}}').text).to.equal('31.5 at dev-1');
    });

    it('reads a body without Content-Type as JSON when it is JSON with its holes as values', () => {
      const filled = fill('{"text":"{{$NEW.s}}","n":{{$NEW.temp}}}');

      expect(filled.contentType).to.equal('application/json');
      expect(JSON.parse(filled.text)).to.deep.equal({ text: INJECTION, n: 31.5 });
      expect(JSON.parse(fill('[{{$NEW.temp}}, "{{$NEW.s}}"]').text)).to.deep.equal([31.5, INJECTION]);
      expect(fill('"{{$NEW.s}}"').text).to.equal(JSON.stringify(INJECTION));
    });

    it('keeps a body that is one hole as text, sent as JSON when the text is JSON', () => {
      expect(fill('{{$NEW.s}}')).to.deep.equal({ text: INJECTION, contentType: 'text/plain; charset=utf-8' });
      expect(fill(' {{$NEW.place}}\n')).to.deep.equal({ text: ' {"room":"bed \\"1\\""}\n', contentType: 'application/json' });
    });

    it('fills a declared JSON body as JSON, a one-hole body as one JSON value', () => {
      expect(fill('{{$NEW.s}}', 'application/json; charset=utf-8').text).to.equal(JSON.stringify(INJECTION));
      expect(JSON.parse(fill('{"t":"{{$NEW.s}}"}', 'application/vnd.api+json').text)).to.deep.equal({ t: INJECTION });
    });

    it('percent-encodes the values of a form body, as in the uri', () => {
      expect(fill('message={{msg}}&id={{$DEVICEID}}', 'application/x-www-form-urlencoded').text).to.equal('message=hot%20%26%20humid%20%3D%20yes&id=dev-1');
    });

    it('fills a body of another declared type as text, as written', () => {
      expect(fill('{"text":"{{$NEW.s}}"', 'text/plain').text).to.equal(`{"text":"${INJECTION}"`);
    });

    it('refuses a body that cannot be filled safely', () => {
      expect(problemOf('{"a":"b"{{$NEW.s}}}')).to.match(/opens and closes like JSON, so expected JSON in which every \{\{ \}\} stands as a whole value/);
      expect(problemOf('[{{$NEW.s}}{{$NEW.s}}]')).to.match(/opens and closes like JSON/);
      expect(problemOf('temp={{$NEW.temp}}', 'application/json')).to.match(/the Content-Type is JSON, so expected JSON/);
      expect(problemOf('{"a":1}', '{{context.type}}')).to.match(/Content-Type header decides how the body is filled/);
    });

    it('accepts text that merely starts with a bracket', () => {
      expect(problemOf('[ALERT] {{msg}}')).to.equal(undefined);
      expect(problemOf('{{$NEW.temp}} {"unit":"C"}')).to.equal(undefined);
    });
  });
});
