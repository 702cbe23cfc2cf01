import React, { useState } from 'react';

export default function Warmup() {
  const [text, setText] = useState('');
  const load = async () => {
    const response = await fetch('/api/warmup');
    const data = await response.json();
    setText(data.text);
  };
  return (<div><button onClick={load}>Load</button><p>{text}</p></div>);
}
