import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import TemperatureUnits from './TemperatureUnits';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('refetches the temperature in Fahrenheit when the unit is switched', async () => {
  fetchMock.get('/api/weather?units=metric', { temp: 21 });
  fetchMock.get('/api/weather?units=imperial', { temp: 70 });

  await act(async () => { render(<TemperatureUnits />); });
  expect(screen.getByText('21°C')).toBeInTheDocument();

  await act(async () => { fireEvent.click(screen.getByText(/switch to fahrenheit/i)); });

  expect(fetchMock.called('/api/weather?units=imperial')).toBe(true);
  expect(screen.getByText('70°F')).toBeInTheDocument();
  expect(screen.queryByText('21°C')).not.toBeInTheDocument();
}, 10000);

test('keeps the Celsius reading and shows an error when switching fails', async () => {
  fetchMock.get('/api/weather?units=metric', { temp: 21 });
  fetchMock.get('/api/weather?units=imperial', 500);

  await act(async () => { render(<TemperatureUnits />); });
  await act(async () => { fireEvent.click(screen.getByText(/switch to fahrenheit/i)); });

  expect(fetchMock.called('/api/weather?units=imperial')).toBe(true);
  expect(screen.getByText('21°C')).toBeInTheDocument();
  expect(screen.getByText(/could not switch units/i)).toBeInTheDocument();
}, 10000);
