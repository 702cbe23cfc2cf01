import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './logWorkout';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('logs a workout with a numeric duration', async () => {
  fetchMock.post('/api/workouts', { status: 201, body: { id: 'w-77' } });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/activity/i), { target: { value: 'Running' } });
  });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/duration/i), { target: { value: '30' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/log workout/i)); });

  expect(fetchMock.calls('/api/workouts').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/workouts').body)).toMatchObject({
    activity: 'Running',
    duration: 30,
  });
  expect(screen.getByText(/workout logged/i)).toBeInTheDocument();
}, 10000);

test('shows an error when the workout cannot be logged', async () => {
  fetchMock.post('/api/workouts', 500);

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/activity/i), { target: { value: 'Running' } });
  });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/duration/i), { target: { value: '30' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/log workout/i)); });

  expect(fetchMock.calls('/api/workouts').length).toBe(1);
  expect(screen.getByText(/failed to log workout/i)).toBeInTheDocument();
}, 10000);
