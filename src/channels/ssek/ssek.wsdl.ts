import { CATALOGUE_NAMESPACE } from '../../messages/catalogue-namespace.ts';
import { escapeXml } from '../../messages/xml-writer.ts';
import { SSEK_NAMESPACE } from './ssek-envelope.ts';

/**
 * The WSDL of the SSEK endpoint, published at GET /ssek?wsdl and generated from the
 * catalogue, so a new document type appears as an operation without an edit here.
 * SOAP 1.1, document/literal, one part per message naming an element (WS-I Basic
 * Profile, which .NET and Java tooling require): one operation per request type plus
 * GetResponse, all on the one endpoint, which dispatches on the body's root element.
 *
 * The documents are typed by the catalogue's own XSDs, included from the gateway
 * (`<endpoint>/xsd/<Name>.xsd`, where their relative includes of Types.xsd resolve).
 * Each operation's output is its response document (GetResponse's: Receipt); a
 * document/literal output names one element only, so the other answers an operation
 * may give in a 200 body — Receipt and MessageRejected — are declared as elements too.
 * Every answer document has a message named after its element, which is how a SOAP
 * stack that reads the body by its root element (the npm `soap` client does) finds its
 * type whichever answer came. Every SOAP fault is the fault SsekFault (detail: the
 * gateway's ErrorCode). The SSEK header is bound as soap:header in input and output.
 */
export interface WsdlOperation {
  /** Request root element, e.g. ChangeFee. */
  readonly name: string;
  /** Response root element, e.g. ChangeFeeResponse. */
  readonly responseName: string;
}

/** The answers any operation may give besides its output, in a 200 body. */
const OTHER_ANSWERS = ['Receipt', 'MessageRejected'];

/** Where the catalogue's schema `name` (e.g. ChangeFee) is served, given the endpoint's address. */
function schemaUrlOf(endpointUrl: string, name: string): string {
  return `${endpointUrl.replace(/\/+$/, '')}/xsd/${name}.xsd`;
}

export function buildSsekWsdl(endpointUrl: string, operations: readonly WsdlOperation[]): string {
  const all = [...operations, { name: 'GetResponse', responseName: 'Receipt' }];
  const answers = [...new Set([...operations.map((op) => op.responseName), ...OTHER_ANSWERS])];
  // Receipt has no XSD in schemas/: it is declared below, with the other SSEK-only elements.
  const included = [...new Set([...operations.map((op) => op.name), ...answers])].filter((name) => name !== 'Receipt');
  return `<?xml version="1.0" encoding="UTF-8"?>
<wsdl:definitions name="DepotGatewaySsek" targetNamespace="${CATALOGUE_NAMESPACE}"
    xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
    xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="${CATALOGUE_NAMESPACE}" xmlns:ssek="${SSEK_NAMESPACE}">
  <wsdl:documentation>depot-gateway SSEK endpoint (SOAP 1.1, document/literal). Every request carries the SSEK header
    (ssek:SSEK: SenderId, ReceiverId, TxId, soap:mustUnderstand="1") and may carry tns:Flow (sync, pull or push).
    An operation answers with its response document; or with tns:Receipt while the response is not ready (fetch it
    with GetResponse); or with tns:MessageRejected when the document could not be read or is a duplicate; or with a
    SOAP fault whose detail is tns:ErrorCode. GetResponse answers with the response document of the TxId it names,
    or with tns:Receipt until it is ready.</wsdl:documentation>
  <wsdl:types>
    <xsd:schema targetNamespace="${CATALOGUE_NAMESPACE}" elementFormDefault="qualified">
${included.map((name) => `      <xsd:include schemaLocation="${escapeXml(schemaUrlOf(endpointUrl, name))}"/>`).join('\n')}
      <xsd:element name="GetResponse">
        <xsd:complexType><xsd:sequence><xsd:element name="TxId" type="xsd:string"/></xsd:sequence></xsd:complexType>
      </xsd:element>
      <xsd:simpleType name="SsekFlow">
        <xsd:restriction base="xsd:string">
          <xsd:enumeration value="sync"/><xsd:enumeration value="pull"/><xsd:enumeration value="push"/>
        </xsd:restriction>
      </xsd:simpleType>
      <xsd:element name="Receipt">
        <xsd:complexType>
          <xsd:sequence>
            <xsd:element name="MessageId" type="xsd:string"/>
            <xsd:element name="TxId" type="xsd:string"/>
            <xsd:element name="Status" type="xsd:string"/>
            <xsd:element name="Flow" type="tns:SsekFlow"/>
          </xsd:sequence>
        </xsd:complexType>
      </xsd:element>
      <xsd:element name="Flow" type="tns:SsekFlow"/>
      <xsd:element name="ErrorCode" type="xsd:string"/>
    </xsd:schema>
    <xsd:schema targetNamespace="${SSEK_NAMESPACE}" elementFormDefault="qualified">
      <xsd:attribute name="Type" type="xsd:string"/>
      <xsd:complexType name="PartyId">
        <xsd:simpleContent><xsd:extension base="xsd:string"><xsd:attribute ref="ssek:Type"/></xsd:extension></xsd:simpleContent>
      </xsd:complexType>
      <xsd:element name="SSEK">
        <xsd:complexType>
          <xsd:sequence>
            <xsd:element name="SenderId" type="ssek:PartyId"/>
            <xsd:element name="ReceiverId" type="ssek:PartyId"/>
            <xsd:element name="TxId" type="xsd:string"/>
            <xsd:any namespace="##other" processContents="lax" minOccurs="0" maxOccurs="unbounded"/>
          </xsd:sequence>
          <xsd:anyAttribute namespace="##other" processContents="lax"/>
        </xsd:complexType>
      </xsd:element>
    </xsd:schema>
  </wsdl:types>
  <wsdl:message name="SsekHeader"><wsdl:part name="header" element="ssek:SSEK"/></wsdl:message>
  <wsdl:message name="SsekFault"><wsdl:part name="detail" element="tns:ErrorCode"/></wsdl:message>
${all.map((op) => `  <wsdl:message name="${op.name}Request"><wsdl:part name="document" element="tns:${op.name}"/></wsdl:message>`).join('\n')}
${answers.map((name) => `  <wsdl:message name="${name}"><wsdl:part name="document" element="tns:${name}"/></wsdl:message>`).join('\n')}
  <wsdl:portType name="SsekPortType">
${all.map((op) => `    <wsdl:operation name="${op.name}">
      <wsdl:input message="tns:${op.name}Request"/>
      <wsdl:output message="tns:${op.responseName}"/>
      <wsdl:fault name="SsekFault" message="tns:SsekFault"/>
    </wsdl:operation>`).join('\n')}
  </wsdl:portType>
  <wsdl:binding name="SsekBinding" type="tns:SsekPortType">
    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
${all.map((op) => `    <wsdl:operation name="${op.name}">
      <soap:operation soapAction="${CATALOGUE_NAMESPACE}/${op.name}" style="document"/>
      <wsdl:input><soap:body use="literal"/><soap:header message="tns:SsekHeader" part="header" use="literal"/></wsdl:input>
      <wsdl:output><soap:body use="literal"/><soap:header message="tns:SsekHeader" part="header" use="literal"/></wsdl:output>
      <wsdl:fault name="SsekFault"><soap:fault name="SsekFault" use="literal"/></wsdl:fault>
    </wsdl:operation>`).join('\n')}
  </wsdl:binding>
  <wsdl:service name="DepotGatewaySsek">
    <wsdl:port name="SsekPort" binding="tns:SsekBinding"><soap:address location="${escapeXml(endpointUrl)}"/></wsdl:port>
  </wsdl:service>
</wsdl:definitions>
`;
}
